// Package export writes a dataset table, all runs together, as CSV or as an
// Arrow IPC file (Feather v2) for notebook users. Columns are the table's
// Parquet columns, with the run name first.
package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/outlast-dev/outlast/schema"
)

// column is one exported column: its name and the struct field it reads.
type column struct {
	name  string
	index int
	typ   reflect.Type
	// unknownIn reports whether the column's figures are unknown in a run,
	// where the dataset stores a value with a flag of the run's saying so;
	// nil for a column always known.
	unknownIn func(*schema.RunData) bool
}

// unknownInRun are the columns whose figures a run's flag can make
// unknown, by table and column. The turns' cached_tokens are 0 in the
// dataset when the engine reported none (runs.cache_reported false:
// vLLM's API leaves the figure out when nothing was cached, so a turn's
// figure is known only once the whole run is read, after its turns were
// written); an export, read run by run, says "unknown" instead.
var unknownInRun = map[string]func(*schema.RunData) bool{
	schema.TableTurns + ".cached_tokens": func(d *schema.RunData) bool {
		return d.Run.CacheReported != nil && !*d.Run.CacheReported
	},
}

// columns lists the exported columns of table, whose row type is t: "run",
// then every field with a parquet name, in declaration order.
func columns(table string, t reflect.Type) []column {
	cols := []column{{name: "run", index: -1}}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("parquet"), ",")[0]
		if tag == "" || tag == "-" {
			continue
		}
		cols = append(cols, column{name: tag, index: i, typ: f.Type, unknownIn: unknownInRun[table+"."+tag]})
	}
	return cols
}

// Rows returns the rows of table across runs as a slice of its row type,
// and that type.
func Rows(table string, runs []*schema.RunData) (reflect.Value, error) {
	var v reflect.Value
	switch table {
	case schema.TableRuns:
		rows := make([]schema.Run, 0, len(runs))
		for _, d := range runs {
			rows = append(rows, d.Run)
		}
		v = reflect.ValueOf(rows)
	case schema.TableSessions:
		v = reflect.ValueOf(concat(runs, func(d *schema.RunData) []schema.Session { return d.Sessions }))
	case schema.TableTurns:
		v = reflect.ValueOf(concat(runs, func(d *schema.RunData) []schema.Turn { return d.Turns }))
	case schema.TableEvents:
		v = reflect.ValueOf(concat(runs, func(d *schema.RunData) []schema.Event { return d.Events }))
	case schema.TableEngine:
		v = reflect.ValueOf(concat(runs, func(d *schema.RunData) []schema.EngineSample { return d.Engine }))
	default:
		return v, fmt.Errorf("unknown table %q (tables: %s)", table, strings.Join(schema.Tables, ", "))
	}
	return v, nil
}

func concat[T any](runs []*schema.RunData, get func(*schema.RunData) []T) []T {
	var out []T
	for _, d := range runs {
		out = append(out, get(d)...)
	}
	return out
}

// runName reads the Run field every row type has.
func runName(row reflect.Value) string { return row.FieldByName("Run").String() }

// WriteCSV writes table as CSV with a header row. Nulls are empty fields,
// floats use the shortest representation that round-trips, times RFC 3339.
func WriteCSV(w io.Writer, table string, runs []*schema.RunData) error {
	return writeAll(w, table, runs, NewCSVWriter)
}

// WriteArrow writes table as an Arrow IPC file (Feather v2), zstd-compressed,
// in record batches of BatchRows.
func WriteArrow(w io.Writer, table string, runs []*schema.RunData) error {
	return writeAll(w, table, runs, NewArrowWriter)
}

func writeAll(w io.Writer, table string, runs []*schema.RunData, newWriter func(io.Writer, string) (*Writer, error)) error {
	tw, err := newWriter(w, table)
	if err != nil {
		return err
	}
	for _, d := range runs {
		if err := tw.Write(d); err != nil {
			return err
		}
	}
	return tw.Close()
}

// Writer writes one table run after run, as CSV (NewCSVWriter) or Arrow
// IPC (NewArrowWriter): the same bytes as WriteCSV and WriteArrow given
// the same runs, holding only the current run and, for Arrow, the current
// record batch.
type Writer struct {
	table string
	cols  []column
	// add writes rows, with null in the columns unknown holds true for.
	add     func(rows reflect.Value, unknown []bool) error
	close   func() error
	unknown []bool
}

// Write adds the rows of d's table.
func (tw *Writer) Write(d *schema.RunData) error {
	rows, err := Rows(tw.table, []*schema.RunData{d})
	if err != nil {
		return err
	}
	for i, c := range tw.cols {
		tw.unknown[i] = c.unknownIn != nil && c.unknownIn(d)
	}
	return tw.add(rows, tw.unknown)
}

// Close writes what is left: the last record batch and the Arrow footer,
// or the CSV writer's buffer.
func (tw *Writer) Close() error { return tw.close() }

// newWriter returns a Writer of table with its columns, the caller filling
// in add and close.
func newWriter(table string) (*Writer, error) {
	rows, err := Rows(table, nil)
	if err != nil {
		return nil, err
	}
	cols := columns(table, rows.Type().Elem())
	return &Writer{table: table, cols: cols, unknown: make([]bool, len(cols))}, nil
}

// NewCSVWriter writes the header row of table to w and returns the Writer
// of its rows.
func NewCSVWriter(w io.Writer, table string) (*Writer, error) {
	tw, err := newWriter(table)
	if err != nil {
		return nil, err
	}
	cols := tw.cols
	cw := csv.NewWriter(w)
	rec := make([]string, len(cols))
	for i, c := range cols {
		rec[i] = c.name
	}
	if err := cw.Write(rec); err != nil {
		return nil, err
	}
	tw.add = func(rows reflect.Value, unknown []bool) error {
		for r := 0; r < rows.Len(); r++ {
			row := rows.Index(r)
			for i, c := range cols {
				switch {
				case c.index < 0:
					rec[i] = runName(row)
				case unknown[i]:
					rec[i] = ""
				default:
					rec[i] = formatCSV(row.Field(c.index))
				}
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		return nil
	}
	tw.close = func() error {
		cw.Flush()
		return cw.Error()
	}
	return tw, nil
}

func formatCSV(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	if t, ok := v.Interface().(time.Time); ok {
		return t.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v.Interface())
}

// arrowType maps a row field's Go type to an Arrow type and nullability.
func arrowType(t reflect.Type) (arrow.DataType, bool) {
	nullable := t.Kind() == reflect.Pointer
	if nullable {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return arrow.BinaryTypes.String, nullable
	case reflect.Bool:
		return arrow.FixedWidthTypes.Boolean, nullable
	case reflect.Int32:
		return arrow.PrimitiveTypes.Int32, nullable
	case reflect.Int64:
		return arrow.PrimitiveTypes.Int64, nullable
	case reflect.Float64:
		return arrow.PrimitiveTypes.Float64, nullable
	}
	if t == reflect.TypeOf(time.Time{}) {
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nullable
	}
	panic("export: no Arrow type for " + t.String())
}

// BatchRows is the number of rows per Arrow record batch.
const BatchRows = 64 * 1024

// NewArrowWriter starts an Arrow IPC file (Feather v2) of table on w,
// zstd-compressed, in record batches of BatchRows, and returns the Writer
// of its rows.
func NewArrowWriter(w io.Writer, table string) (*Writer, error) {
	tw, err := newWriter(table)
	if err != nil {
		return nil, err
	}
	cols := tw.cols
	fields := make([]arrow.Field, len(cols))
	fields[0] = arrow.Field{Name: "run", Type: arrow.BinaryTypes.String}
	for i, c := range cols[1:] {
		typ, nullable := arrowType(c.typ)
		fields[i+1] = arrow.Field{Name: c.name, Type: typ, Nullable: nullable || c.unknownIn != nil}
	}
	md := arrow.NewMetadata([]string{schema.VersionKey, schema.TableKey}, []string{schema.Version, table})
	sch := arrow.NewSchema(fields, &md)
	mem := memory.NewGoAllocator()
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(sch), ipc.WithAllocator(mem), ipc.WithZstd())
	if err != nil {
		return nil, err
	}
	b := array.NewRecordBuilder(mem, sch)
	flush := func() error {
		rec := b.NewRecordBatch()
		defer rec.Release()
		return fw.Write(rec)
	}
	batched, total := 0, 0 // rows in the current batch, in all
	tw.add = func(rows reflect.Value, unknown []bool) error {
		for r := 0; r < rows.Len(); r++ {
			row := rows.Index(r)
			b.Field(0).(*array.StringBuilder).Append(runName(row))
			for i, c := range cols[1:] {
				if unknown[i+1] {
					b.Field(i + 1).AppendNull()
					continue
				}
				appendArrow(b.Field(i+1), row.Field(c.index))
			}
			batched++
			total++
			if batched == BatchRows {
				if err := flush(); err != nil {
					return err
				}
				batched = 0
			}
		}
		return nil
	}
	tw.close = func() error {
		defer b.Release()
		// An empty table is one empty batch.
		if batched > 0 || total == 0 {
			if err := flush(); err != nil {
				return err
			}
		}
		return fw.Close()
	}
	return tw, nil
}

func appendArrow(b array.Builder, v reflect.Value) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			b.AppendNull()
			return
		}
		v = v.Elem()
	}
	switch b := b.(type) {
	case *array.StringBuilder:
		b.Append(v.String())
	case *array.BooleanBuilder:
		b.Append(v.Bool())
	case *array.Int32Builder:
		b.Append(int32(v.Int()))
	case *array.Int64Builder:
		b.Append(v.Int())
	case *array.Float64Builder:
		b.Append(v.Float())
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(v.Interface().(time.Time).UnixMicro()))
	default:
		panic(fmt.Sprintf("export: no appender for %T", b))
	}
}
