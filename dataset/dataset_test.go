package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/textpos"

	"github.com/parquet-go/parquet-go"

	"github.com/outlast-dev/outlast/schema"
)

func ptr[T any](v T) *T { return &v }

// sampleRun has every nullable column both set and null somewhere, and rows
// deliberately out of order.
func sampleRun(name string) *schema.RunData {
	return &schema.RunData{
		Run: schema.Run{
			Run: name, Experiment: "paired-8b", Design: "paired", Seed: ptr[int64](501), Arm: "burst",
			StartedAt: time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC), DurationS: 5400,
			EngineName: "vllm", EngineVersion: "0.20.2", EngineModel: "Qwen/Qwen3-8B", PrefixCaching: true,
			KVPoolTokens: ptr[int64](400000), KVPoolSource: "manifest", LogTZ: "UTC",
			ArrivalRate: ptr(0.035), Turns: ptr[int64](25), WorkloadExtra: "{}",
			TriggerKind: "burst", TriggerStartS: ptr(900.0), TriggerEndS: ptr(1200.0), TriggerExtraRate: ptr(0.0525),
			TriggerExtra: "{}", ControlParams: "{}", AlignS: 1200, Labels: `{"gpu":"MI300X"}`,
			ManifestSHA256: "ab", GatewaySHA256: "cd", OutlastVersion: "test", SchemaVersion: schema.Version,
		},
		Sessions: []schema.Session{
			{Run: name, Session: "b-0002", Origin: "burst", ArriveS: 950, Status: "open"},
			{Run: name, Session: "b-0001", Origin: "base", ArriveS: 1.2, EndS: ptr(1200.5), Status: "done",
				TurnsPlanned: ptr[int64](25), TurnsDone: 25, ContextTokens: ptr[int64](6144)},
		},
		Turns: []schema.Turn{
			{Run: name, Session: "b-0001", Turn: 1, Origin: "base", DoneS: 77.1, PromptTokens: 7468, OutputTokens: 300, Status: "ok"},
			{Run: name, Session: "b-0001", Turn: 0, Origin: "base", ReadyS: ptr(1.2), SentS: ptr(1.21), FirstTokenS: ptr(2.4),
				DoneS: 9.85, PromptTokens: 6144, CachedTokens: 2048, OutputTokens: 300, Status: "ok"},
		},
		Events: []schema.Event{
			{Run: name, TS: 900, Kind: schema.EventTrigger, TriggerKind: ptr("burst"), Phase: ptr("start"), Extra: `{"extra_rate":0.0525}`},
			{Run: name, TS: 15.02, Kind: schema.EventPark, Session: ptr("b-0001"), Turn: ptr[int32](1), Extra: "{}"},
		},
		Engine: []schema.EngineSample{
			{Run: name, TS: 10, Source: schema.SourceMetrics, Kind: schema.LineScrape, Line: 1, KVUsage: ptr(0.42), CounterReset: true},
			{Run: name, TS: 10, Source: schema.SourceLog, Kind: schema.LineStats, Line: 40, Running: ptr(12.0), LoggedHitRate: ptr(0.413)},
		},
	}
}

// writeRuns writes runs into the dataset at root with Write.
func writeRuns(t *testing.T, root string, runs ...*schema.RunData) {
	t.Helper()
	if err := Write(root, "test", runs...); err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	root := t.TempDir()
	want := sampleRun("s501-burst")
	writeRuns(t, root, sampleRun("s501-burst"))
	want.Sort()
	if want.Turns[0].Turn != 0 || want.Sessions[0].Session != "b-0001" || want.Engine[0].Source != schema.SourceLog {
		t.Fatalf("RunData.Sort did not sort by time then name: %+v", want.Turns)
	}
	got, err := ReadRun(root, "s501-burst")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back differs:\n got %+v\nwant %+v", got, want)
	}
	runs, err := Runs(root)
	if err != nil || !reflect.DeepEqual(runs, []string{"s501-burst"}) {
		t.Errorf("Runs = %v, %v", runs, err)
	}
	// The tables and the dataset's lock file and turnstile, no stage.
	if entries, _ := os.ReadDir(root); len(entries) != len(schema.Tables)+2 {
		t.Errorf("stage not removed: %v", entries)
	}
}

func TestSameRowsSameBytes(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeRuns(t, a, sampleRun("r1"))
	d := sampleRun("r1")
	// Reverse every table: sorting must make the order of collection irrelevant.
	for i, j := 0, len(d.Turns)-1; i < j; i, j = i+1, j-1 {
		d.Turns[i], d.Turns[j] = d.Turns[j], d.Turns[i]
	}
	writeRuns(t, b, d)
	for _, table := range schema.Tables {
		fa, _ := os.ReadFile(filepath.Join(PartitionDir(a, table, "r1"), FileName))
		fb, _ := os.ReadFile(filepath.Join(PartitionDir(b, table, "r1"), FileName))
		if len(fa) == 0 || !bytes.Equal(fa, fb) {
			t.Errorf("%s: files differ (%d vs %d bytes)", table, len(fa), len(fb))
		}
	}
}

func TestReingestReplaces(t *testing.T) {
	root := t.TempDir()
	writeRuns(t, root, sampleRun("r1"))
	d := sampleRun("r1")
	d.Turns = d.Turns[:1]
	writeRuns(t, root, d)
	got, err := ReadRun(root, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Turns) != 1 {
		t.Errorf("re-ingest kept %d turns, want 1", len(got.Turns))
	}
}

func TestAbortLeavesDatasetAsItWas(t *testing.T) {
	root := t.TempDir()
	writeRuns(t, root, sampleRun("r1"))
	st, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	d := sampleRun("r1")
	d.Turns = nil
	if err := st.WriteRun(d); err != nil {
		t.Fatal(err)
	}
	if err := st.Abort(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRun(root, "r1")
	if err != nil || len(got.Turns) != 2 {
		t.Fatalf("after Abort: %v turns, err %v; want the 2 committed", len(got.Turns), err)
	}
}

func TestRejectsKeptVerbatim(t *testing.T) {
	root := t.TempDir()
	st, _ := NewStage(root, "test")
	if err := st.WriteRun(sampleRun("r1")); err != nil {
		t.Fatal(err)
	}
	rej := []*textpos.ParseError{
		textpos.At(textpos.Pos{File: "gateway.jsonl", Line: 7}, 7, []byte(`{"ts":`), "not JSON"),
		textpos.Errorf(textpos.Pos{File: "gateway.jsonl", Line: 9}, []byte{0xff, 'x'}, "not JSON"),
	}
	if err := st.WriteRejects("r1", rej); err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, RejectsDir, "r1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"pos":"gateway.jsonl:7:7","reason":"not JSON","line":"{\"ts\":"}` + "\n" +
		`{"pos":"gateway.jsonl:9","reason":"not JSON","line_base64":"/3g="}` + "\n"
	if string(b) != want {
		t.Errorf("rejects file:\n%s\nwant:\n%s", b, want)
	}
}

func TestSchemaVersionChecked(t *testing.T) {
	if _, err := ReadRun(t.TempDir(), "nope"); err == nil {
		t.Error("reading a missing run gave no error")
	}
	// A file written by another schema version is refused by name, not
	// misread.
	root := t.TempDir()
	writeRuns(t, root, sampleRun("r1"))
	path := filepath.Join(PartitionDir(root, schema.TableTurns, "r1"), FileName)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[schema.Turn](f, parquet.KeyValueMetadata(schema.VersionKey, "999"))
	if _, err := w.Write(sampleRun("r1").Turns); err != nil {
		t.Fatal(err)
	}
	w.Close()
	f.Close()
	if _, err := ReadRun(root, "r1"); err == nil || !strings.Contains(err.Error(), `schema version "999"`) {
		t.Errorf("reading a version-999 file: err = %v, want it refused by version", err)
	}
}

// TestStageRunsInParallel checks that runs written at the same time, each
// by its own goroutine, give the files they give one after another.
func TestStageRunsInParallel(t *testing.T) {
	names := []string{"r1", "r2", "r3", "r4", "r5", "r6"}
	sequential := t.TempDir()
	var runs []*schema.RunData
	for _, n := range names {
		runs = append(runs, sampleRun(n))
	}
	writeRuns(t, sequential, runs...)

	parallel := t.TempDir()
	st, err := NewStage(parallel, "test")
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, len(names))
	for i := range names {
		go func() {
			// Finish in the reverse order of beginning, roughly.
			time.Sleep(time.Duration(len(names)-i) * time.Millisecond)
			errs <- st.WriteRun(sampleRun(names[i]))
		}()
	}
	for range names {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		for _, table := range schema.Tables {
			a, _ := os.ReadFile(filepath.Join(PartitionDir(sequential, table, n), FileName))
			b, _ := os.ReadFile(filepath.Join(PartitionDir(parallel, table, n), FileName))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s/%s: written in parallel, the file differs", table, n)
			}
		}
	}
}
