package dataset

import (
	"io"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/outlast-dev/outlast/schema"
)

// fileSpec is how the files of one table are written: everything about
// them but the run's name, which is the only key/value metadata that
// differs from run to run.
type fileSpec struct {
	table   string
	created string // the outlast version, in created_by
	// pageBuffer is the size of each column's page buffer, which decides
	// where pages are cut: 256 KB holds a row group's worth of most
	// columns in a few pages, and bounds the writer's memory at columns x
	// 256 KB whatever the table's size.
	pageBuffer int
}

// Page buffers: of most tables, and of a table of at most one row. One
// row is one page in each column whatever the buffer's size: the same
// bytes, without the 256 KB per column that a buffer of the default size
// costs a writer.
const (
	pageBuffer    = 256 << 10
	onePageBuffer = 4 << 10
)

// zstdCodec compresses every file. One codec for all: it keeps a pool of
// encoders, and an encoder is costly to make (its tables and history
// buffers), which a codec per file would pay for every file of every run.
var zstdCodec = &zstd.Codec{Level: zstd.SpeedFastest}

// options returns the writer options of run's file.
func (s fileSpec) options(run string) []parquet.WriterOption {
	return []parquet.WriterOption{
		parquet.KeyValueMetadata(schema.VersionKey, schema.Version),
		parquet.KeyValueMetadata(schema.TableKey, s.table),
		parquet.KeyValueMetadata(schema.RunKey, run),
		parquet.Compression(zstdCodec),
		parquet.MaxRowsPerRowGroup(maxRowsPerRowGroup),
		parquet.PageBufferSize(s.pageBuffer),
		parquet.CreatedBy("outlast", s.created, "schema-"+schema.Version),
		// No statistics in the pages' headers: each page's bounds are in
		// the file's page index, and the column chunk's in its metadata.
		// A reused writer wrote an empty bound where a new one writes none
		// (parquet-go 0.32), and encoding them took time.
		parquet.DataPageStatistics(false),
		// The file is buffered by the caller (fileBuffers).
		parquet.WriteBufferSize(0),
	}
}

// Writers are reused from file to file: a campaign writes five files a
// run, and making a writer (every column's buffers, and the functions that
// take a row apart) was a third of writing a small run's files, most of it
// for the runs table's 51 columns. A reused writer writes the same bytes
// as a new one (TestReusedWritersSameBytes), so a file does not depend on
// which runs were written before it, or in what order. The free writers of
// each table wait in a channel, not a sync.Pool, which every collection
// empties: a campaign's ingest collects often (its soft memory limit).
var writers sync.Map // writerKey → chan *parquet.GenericWriter[T]

// reusedWriters counts the writers reused, for tests.
var reusedWriters atomic.Int64

type writerKey struct {
	t    reflect.Type
	spec fileSpec
}

// freeWriters returns the free writers of T for spec.
func freeWriters[T any](spec fileSpec) chan *parquet.GenericWriter[T] {
	key := writerKey{reflect.TypeFor[T](), spec}
	if c, ok := writers.Load(key); ok {
		return c.(chan *parquet.GenericWriter[T])
	}
	// A few per core: as many runs are written at once.
	c, _ := writers.LoadOrStore(key, make(chan *parquet.GenericWriter[T], 2*runtime.GOMAXPROCS(0)))
	return c.(chan *parquet.GenericWriter[T])
}

// getWriter returns a writer of spec's files writing run's file to out.
func getWriter[T any](spec fileSpec, run string, out io.Writer) *parquet.GenericWriter[T] {
	select {
	case w := <-freeWriters[T](spec):
		w.Reset(out)
		w.SetKeyValueMetadata(schema.RunKey, run)
		reusedWriters.Add(1)
		return w
	default:
		return parquet.NewGenericWriter[T](out, spec.options(run)...)
	}
}

// putWriter gives back a writer from getWriter whose file was closed
// without an error.
func putWriter[T any](spec fileSpec, w *parquet.GenericWriter[T]) {
	// parquet-go (0.32) shares each column's path between the writer and
	// the file's metadata, and Reset clears the metadata's slices in
	// place: the next file would have columns without a path_in_schema.
	// The file is written; its metadata lets go of the paths first.
	if f := w.File(); f != nil {
		md := f.Metadata()
		for i := range md.RowGroups {
			for j := range md.RowGroups[i].Columns {
				md.RowGroups[i].Columns[j].MetaData.PathInSchema = nil
			}
		}
	}
	w.Reset(nil)
	select {
	case freeWriters[T](spec) <- w:
	default: // enough are waiting
	}
}
