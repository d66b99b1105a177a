package dataset

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/outlast-dev/outlast/schema"
)

// ReadRunRow reads one run's row of the runs table alone, without its
// other tables.
func ReadRunRow(root, run string) (schema.Run, error) {
	paths, data, err := readFiles(root, run, schema.TableRuns)
	if err != nil {
		return schema.Run{}, err
	}
	return runRow(run, paths[0], data[0])
}

// runRow decodes the runs-table file of run, read from path.
func runRow(run, path string, b []byte) (schema.Run, error) {
	runs, err := decodeTable[schema.Run](path, b, nil)
	if err != nil {
		return schema.Run{}, err
	}
	if len(runs) != 1 {
		return schema.Run{}, fmt.Errorf("dataset: %s: want 1 row in runs, have %d", run, len(runs))
	}
	runs[0].Run = run
	return runs[0], nil
}

// ReadOption changes what a read gives.
type ReadOption func(*readConfig)

type readConfig struct {
	skipEngine map[string]bool // engine columns left unread
}

func configOf(opts []ReadOption) readConfig {
	var c readConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}

// SkipEngineColumns leaves the named columns of the engine table unread:
// their fields keep their zero value (null, for a nullable column), as
// for a file written before the column existed. A reader that needs some
// of an engine table's columns, as the statistics do, then decodes only
// those: an SGLang run, whose log prints every batch, has over 10,000
// engine rows, and decoding them was most of a report's time.
func SkipEngineColumns(names ...string) ReadOption {
	return func(c *readConfig) {
		if c.skipEngine == nil {
			c.skipEngine = map[string]bool{}
		}
		for _, n := range names {
			c.skipEngine[n] = true
		}
	}
}

// ReadRun reads one run's five tables back.
func ReadRun(root, run string, opts ...ReadOption) (*schema.RunData, error) {
	cfg := configOf(opts)
	// The five files are read at once, under one lock, so that they are
	// of one commit (snapshot.go).
	p, b, err := readFiles(root, run, schema.TableRuns, schema.TableSessions, schema.TableTurns, schema.TableEvents, schema.TableEngine)
	if err != nil {
		return nil, err
	}
	d := &schema.RunData{}
	if d.Run, err = runRow(run, p[0], b[0]); err != nil {
		return nil, err
	}
	if d.Sessions, err = decodeTable[schema.Session](p[1], b[1], nil); err != nil {
		return nil, err
	}
	if d.Turns, err = decodeTable[schema.Turn](p[2], b[2], nil); err != nil {
		return nil, err
	}
	if d.Events, err = decodeTable[schema.Event](p[3], b[3], nil); err != nil {
		return nil, err
	}
	if d.Engine, err = decodeTable[schema.EngineSample](p[4], b[4], cfg.skipEngine); err != nil {
		return nil, err
	}
	d.Run.Run = run
	for i := range d.Sessions {
		d.Sessions[i].Run = run
	}
	for i := range d.Turns {
		d.Turns[i].Run = run
	}
	for i := range d.Events {
		d.Events[i].Run = run
	}
	for i := range d.Engine {
		d.Engine[i].Run = run
	}
	return d, nil
}

// ReadAll reads every run of the dataset at root, in run-name order. Its
// memory grows with the dataset; Each holds a few runs at a time.
func ReadAll(root string) ([]*schema.RunData, error) {
	var out []*schema.RunData
	err := Each(root, func(d *schema.RunData) error {
		out = append(out, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Each calls fn with every run of the dataset at root, one at a time, in
// run-name order, on the caller's goroutine. Runs are read ahead on every
// core, a few at a time, so that memory is bounded by the largest runs,
// not by their number: fn may keep what it needs of a run, and the rest is
// garbage once fn returns. The first error, reading a run (in run order)
// or from fn, stops the iteration and is returned.
func Each(root string, fn func(*schema.RunData) error, opts ...ReadOption) error {
	return EachWith(root, func(d *schema.RunData) (*schema.RunData, error) { return d, nil }, fn, opts...)
}

// EachWith is Each with a step f, run on the goroutine that read the run,
// on every core at once: fn gets f's result for each run, in run-name
// order. A run's tables are garbage once f returns unless its result keeps
// them, so f is where a run's measures are computed; fn collects them.
func EachWith[T any](root string, f func(*schema.RunData) (T, error), fn func(T) error, opts ...ReadOption) error {
	runs, err := Runs(root)
	if err != nil {
		return err
	}
	read := func(run string) (T, error) {
		d, err := ReadRun(root, run, opts...)
		if err != nil {
			var zero T
			return zero, err
		}
		return f(d)
	}
	return eachRun(runs, runtime.GOMAXPROCS(0), read, fn)
}

// eachRun calls read for each run on workers goroutines, and fn with the
// results in order. At most 2 × workers runs are being read or waiting for
// fn at a time.
func eachRun[T any](runs []string, workers int, read func(string) (T, error), fn func(T) error) error {
	type result struct {
		v   T
		err error
	}
	workers = max(1, min(workers, len(runs)))
	// slots[i] receives run i's result. Taking a token from ahead before a
	// run is read, and giving it back once fn has its result, bounds how
	// far reading runs ahead of fn.
	slots := make([]chan result, len(runs))
	for i := range slots {
		slots[i] = make(chan result, 1)
	}
	ahead := make(chan struct{}, 2*workers)
	quit := make(chan struct{})
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				v, err := read(runs[i])
				slots[i] <- result{v, err}
			}
		})
	}
	go func() {
		defer close(jobs)
		for i := range runs {
			select {
			case ahead <- struct{}{}:
			case <-quit:
				return
			}
			select {
			case jobs <- i:
			case <-quit:
				return
			}
		}
	}()
	var err error
	for i := range runs {
		r := <-slots[i]
		<-ahead
		if r.err != nil {
			err = r.err
			break
		}
		if err = fn(r.v); err != nil {
			break
		}
	}
	close(quit)
	wg.Wait()
	return err
}

// decodeTable decodes the file of one table of a run, read from path, but
// the columns in skip.
func decodeTable[T any](path string, b []byte, skip map[string]bool) (rows []T, err error) {
	pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	if v, _ := pf.Lookup(schema.VersionKey); v != schema.Version {
		return nil, fmt.Errorf("dataset: %s: schema version %q, this outlast reads %q", path, v, schema.Version)
	}
	rows, err = readColumns[T](pf, skip)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	return rows, nil
}
