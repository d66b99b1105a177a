package export

import (
	"bytes"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/outlast-dev/outlast/schema"
)

func ptr[T any](v T) *T { return &v }

func runs() []*schema.RunData {
	return []*schema.RunData{
		{Run: schema.Run{Run: "a", StartedAt: time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC)},
			Turns: []schema.Turn{
				{Run: "a", Session: "s1", Turn: 0, DoneS: 9.85, PromptTokens: 6144, CachedTokens: 2048, OutputTokens: 300, Status: "ok", SentS: ptr(1.21)},
			}},
		{Run: schema.Run{Run: "b"},
			Turns: []schema.Turn{
				{Run: "b", Session: "s2", Turn: 3, DoneS: 0.5, PromptTokens: 10, Status: "error"},
			}},
		// The engine reported no cached tokens: their figures are unknown.
		{Run: schema.Run{Run: "c", CacheReported: ptr(false)},
			Turns: []schema.Turn{
				{Run: "c", Session: "s3", Turn: 0, DoneS: 2, PromptTokens: 20, OutputTokens: 5, Status: "ok"},
			}},
	}
}

func TestCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, schema.TableTurns, runs()); err != nil {
		t.Fatal(err)
	}
	want := "run,session,turn,origin,ready_s,sent_s,first_token_s,done_s,prompt_tokens,cached_tokens,output_tokens,status\n" +
		"a,s1,0,,,1.21,,9.85,6144,2048,300,ok\n" +
		"b,s2,3,,,,,0.5,10,0,0,error\n" +
		"c,s3,0,,,,,2,20,,5,ok\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	buf.Reset()
	if err := WriteCSV(&buf, schema.TableRuns, runs()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(",2026-10-27T12:00:00Z,")) {
		t.Errorf("runs CSV lacks the RFC 3339 started_at:\n%s", buf.String())
	}
	if err := WriteCSV(&buf, "nope", runs()); err == nil {
		t.Error("unknown table accepted")
	}
}

func TestArrowRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteArrow(&buf, schema.TableTurns, runs()); err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewFileReader(bytes.NewReader(buf.Bytes()), ipc.WithAllocator(memory.NewGoAllocator()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.NumRecords() != 1 {
		t.Fatalf("%d record batches, want 1", r.NumRecords())
	}
	rec, err := r.RecordBatch(0)
	if err != nil {
		t.Fatal(err)
	}
	if rec.NumRows() != 3 || rec.NumCols() != 12 {
		t.Fatalf("shape %dx%d, want 3x12", rec.NumRows(), rec.NumCols())
	}
	sch := rec.Schema()
	col := func(name string) arrow.Array { return rec.Column(sch.FieldIndices(name)[0]) }
	if got := col("run").(*array.String).Value(1); got != "b" {
		t.Errorf("run[1] = %q", got)
	}
	sent := col("sent_s").(*array.Float64)
	if sent.Value(0) != 1.21 || !sent.IsNull(1) {
		t.Errorf("sent_s = %v, want [1.21 null null]", sent)
	}
	if c := col("cached_tokens").(*array.Int64); c.Value(0) != 2048 || c.IsNull(1) || c.Value(1) != 0 || !c.IsNull(2) {
		t.Errorf("cached_tokens = %v, want [2048 0 null]", c)
	}
	if f, _ := sch.FieldsByName("cached_tokens"); !f[0].Nullable {
		t.Error("cached_tokens not nullable")
	}
	if f, _ := sch.FieldsByName("sent_s"); !f[0].Nullable {
		t.Error("sent_s not nullable")
	}
	if f, _ := sch.FieldsByName("done_s"); f[0].Nullable {
		t.Error("done_s nullable")
	}
}
