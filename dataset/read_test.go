package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/outlast-dev/outlast/schema"
)

// genericRows reads a file with parquet-go's generic row reader, the
// reference the column reader is checked against.
func genericRows[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := parquet.NewGenericReader[T](f)
	defer r.Close()
	rows := make([]T, r.NumRows())
	n, err := r.Read(rows)
	if err != nil && !errors.Is(err, io.EOF) || n != len(rows) {
		t.Fatalf("%s: generic reader: %d of %d rows, %v", path, n, len(rows), err)
	}
	return rows
}

func sameAsGeneric[T any](t *testing.T, root, table, run string) {
	t.Helper()
	got, err := readTable[T](root, table, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := genericRows[T](t, filepath.Join(PartitionDir(root, table, run), FileName))
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, the generic reader %d", table, len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s row %d: %+v, the generic reader %+v", table, i, got[i], want[i])
		}
	}
}

// TestColumnsReadAsGenericReader checks the column reader against
// parquet-go's row reader on every table: every nullable column both null
// and set, strings plain and dictionary-encoded, several pages and row
// groups (turns), and tables with no rows.
func TestColumnsReadAsGenericReader(t *testing.T) {
	root := t.TempDir()
	d := sampleRun("full")
	d.Turns = append(d.Turns, manyTurns(3*MaxRowsPerRowGroup/2)...)
	for i := range 3000 {
		d.Engine = append(d.Engine, schema.EngineSample{TS: float64(i), Source: schema.SourceMetrics, Kind: schema.LineScrape,
			Line: int64(i), KVUsage: ptr(float64(i%7) / 7), CounterReset: i%11 == 0})
		if i%3 == 0 {
			d.Engine[len(d.Engine)-1].PromptTput = ptr(float64(i))
		}
		if i%500 == 0 {
			d.Events = append(d.Events, schema.Event{TS: float64(i), Kind: schema.EventControl, Controller: ptr(fmt.Sprint("c", i%3)),
				Limit: ptr(float64(i)), Active: ptr(int64(i)), Extra: "{}"})
		}
	}
	d.Run.CacheReported = ptr(true)
	empty := sampleRun("empty")
	empty.Sessions, empty.Turns, empty.Events, empty.Engine = nil, nil, nil, nil
	empty.Run.CacheReported = nil
	writeRuns(t, root, d, empty)
	for _, run := range []string{"full", "empty"} {
		sameAsGeneric[schema.Run](t, root, schema.TableRuns, run)
		sameAsGeneric[schema.Session](t, root, schema.TableSessions, run)
		sameAsGeneric[schema.Turn](t, root, schema.TableTurns, run)
		sameAsGeneric[schema.Event](t, root, schema.TableEvents, run)
		sameAsGeneric[schema.EngineSample](t, root, schema.TableEngine, run)
	}
}

// TestSkipEngineColumns reads a run with some engine columns left out:
// their fields are zero (null), every other field as in a whole read.
func TestSkipEngineColumns(t *testing.T) {
	root := t.TempDir()
	d := sampleRun("r")
	for i := range 100 {
		d.Engine = append(d.Engine, schema.EngineSample{TS: float64(i), Source: schema.SourceLog, Kind: schema.LineDecode,
			Line: int64(i + 1), KVUsage: ptr(float64(i%7) / 7), GenTput: ptr(float64(i)), TokensUsed: ptr(int64(i)), CounterReset: i%2 == 0})
	}
	writeRuns(t, root, d)
	whole, err := ReadRun(root, "r")
	if err != nil {
		t.Fatal(err)
	}
	part, err := ReadRun(root, "r", SkipEngineColumns("gen_tput", "counter_reset"), SkipEngineColumns("tokens_used"))
	if err != nil {
		t.Fatal(err)
	}
	if len(part.Engine) != len(whole.Engine) || len(whole.Engine) < 100 {
		t.Fatalf("%d engine rows, the whole read %d, want 100 or more", len(part.Engine), len(whole.Engine))
	}
	for i := range whole.Engine {
		want := whole.Engine[i]
		want.GenTput, want.CounterReset, want.TokensUsed = nil, false, nil
		if !reflect.DeepEqual(part.Engine[i], want) {
			t.Fatalf("row %d: %+v, want %+v", i, part.Engine[i], want)
		}
	}
	if !reflect.DeepEqual(part.Turns, whole.Turns) || !reflect.DeepEqual(part.Run, whole.Run) {
		t.Error("the other tables differ from the whole read")
	}
}

// TestColumnTypeChecked reads a table into a row type whose column has
// another type or nullability (an error naming the file and the column),
// or that has a field the file has no column for (left zero, as
// parquet-go's reader does for a file written before a column was added).
func TestColumnTypeChecked(t *testing.T) {
	root := t.TempDir()
	writeRuns(t, root, sampleRun("r"))
	type wrongType struct {
		DoneS int64 `parquet:"done_s"`
	}
	type wrongNull struct {
		DoneS *float64 `parquet:"done_s,optional"`
	}
	for _, err := range []error{
		func() error { _, err := readTable[wrongType](root, schema.TableTurns, "r", nil); return err }(),
		func() error { _, err := readTable[wrongNull](root, schema.TableTurns, "r", nil); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), filepath.Join("turns", "run=r", FileName)) || !strings.Contains(err.Error(), "column done_s") {
			t.Errorf("error %v, want one naming the file and the column", err)
		}
	}
	type added struct {
		DoneS float64  `parquet:"done_s"`
		New   *float64 `parquet:"new_s,optional"`
		Label string   `parquet:"new_label"`
	}
	rows, err := readTable[added](root, schema.TableTurns, "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := genericRows[added](t, filepath.Join(PartitionDir(root, schema.TableTurns, "r"), FileName))
	if !reflect.DeepEqual(rows, want) || len(rows) != 2 || rows[0].New != nil || rows[0].DoneS == 0 {
		t.Errorf("a field without its column: %+v, the generic reader %+v", rows, want)
	}
}

// TestEachInOrder checks that Each hands the runs over in name order,
// whatever order they are read in, and stops at fn's error.
func TestEachInOrder(t *testing.T) {
	root := t.TempDir()
	var names []string
	var runs []*schema.RunData
	for i := range 12 {
		names = append(names, fmt.Sprintf("r%02d", i))
		runs = append(runs, sampleRun(names[i]))
	}
	writeRuns(t, root, runs...)
	var got []string
	if err := Each(root, func(d *schema.RunData) error { got = append(got, d.Run.Run); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, names) {
		t.Errorf("Each gave %v, want %v", got, names)
	}
	stop := errors.New("stop")
	got = nil
	err := Each(root, func(d *schema.RunData) error {
		got = append(got, d.Run.Run)
		if len(got) == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || len(got) != 3 {
		t.Errorf("Each after fn's error: %v, %d runs; want %v after 3", err, len(got), stop)
	}
}

// TestEachReadErrorInOrder checks that a run that cannot be read stops
// Each at that run, after the runs before it.
func TestEachReadErrorInOrder(t *testing.T) {
	runs := []string{"a", "b", "c", "d", "e", "f"}
	bad := errors.New("bad")
	var got []string
	err := eachRun(runs, 3, func(run string) (*schema.RunData, error) {
		if run == "c" || run == "e" {
			return nil, fmt.Errorf("%s: %w", run, bad)
		}
		return &schema.RunData{Run: schema.Run{Run: run}}, nil
	}, func(d *schema.RunData) error { got = append(got, d.Run.Run); return nil })
	if err == nil || err.Error() != "c: bad" || !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("error %v after %v; want c: bad after a, b", err, got)
	}
}

// readTable reads one table of a run as ReadRun does, but the columns in
// skip.
func readTable[T any](root, table, run string, skip map[string]bool) ([]T, error) {
	paths, data, err := readFiles(root, run, table)
	if err != nil {
		return nil, err
	}
	return decodeTable[T](paths[0], data[0], skip)
}
