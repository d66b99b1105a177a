package dataset

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// variedRun is a run of n turns whose nullable columns are set or null at
// random, whose strings repeat or not, with events and engine samples of
// every kind: what a writer carries from one file to the next, if
// anything, shows in its bytes.
func variedRun(name string, seed uint64, n int) *schema.RunData {
	rng := rand.New(rand.NewPCG(seed, 7))
	maybe := func(v float64) *float64 {
		if rng.IntN(4) == 0 {
			return nil
		}
		return &v
	}
	d := sampleRun(name)
	d.Run.Labels = fmt.Sprintf(`{"seed":%d}`, seed)
	if seed%2 == 1 {
		// Strings empty in one run and not in another, columns null in
		// one and not in another.
		d.Run.MetricsSHA256 = fmt.Sprintf("%064x", seed)
		d.Run.EngineLogSHA256 = d.Run.MetricsSHA256
		d.Run.Seed, d.Run.KVPoolTokens = nil, nil
		d.Run.CacheReported = ptr(true)
	}
	str := func(s string) string {
		if rng.IntN(5) == 0 {
			return ""
		}
		return s
	}
	origins := []string{"base", "burst", fmt.Sprintf("o%d", seed), ""}
	for i := range n {
		s := fmt.Sprintf("s-%d", rng.IntN(n/10+1))
		done := float64(i) + rng.Float64()
		d.Turns = append(d.Turns, schema.Turn{Run: name, Session: s, Turn: int32(i % 37), Origin: origins[rng.IntN(4)],
			ReadyS: maybe(done - 2), SentS: maybe(done - 1.5), FirstTokenS: maybe(done - 1), DoneS: done,
			PromptTokens: rng.Int64N(1 << 20), CachedTokens: rng.Int64N(1 << 16), OutputTokens: rng.Int64N(1000), Status: str("ok")})
		if i%10 == 0 {
			d.Sessions = append(d.Sessions, schema.Session{Run: name, Session: str(s), Origin: origins[rng.IntN(4)], ArriveS: done,
				EndS: maybe(done + 100), Status: "done", TurnsDone: rng.Int64N(40)})
		}
		if i%7 == 0 {
			d.Engine = append(d.Engine, schema.EngineSample{Run: name, TS: done, Source: schema.SourceLog, Kind: schema.LineDecode,
				Line: int64(i + 1), Running: maybe(float64(rng.IntN(64))), KVUsage: maybe(rng.Float64())})
		}
		if i%50 == 0 {
			turn := int32(i)
			e := schema.Event{Run: name, TS: done, Kind: schema.EventPark, Session: &s, Turn: &turn, Extra: str("{}")}
			if seed%2 == 1 {
				e.Controller, e.Limit = ptr(str("budgeter")), maybe(3)
			}
			d.Events = append(d.Events, e)
		}
	}
	return d
}

// TestReusedWritersSameBytes writes runs one after another, so that each
// file's writer is one that wrote another run's file before, and checks
// every file against the one a new writer writes: the same bytes, whatever
// came before. (parquet-go 0.32's Reset left the next file's columns
// without their paths; putWriter works around it.)
func TestReusedWritersSameBytes(t *testing.T) {
	defer func(n int64) { maxRowsPerRowGroup = n }(maxRowsPerRowGroup)
	maxRowsPerRowGroup = 700 // files of several row groups
	runs := []*schema.RunData{variedRun("a", 1, 2500), sampleRun("b"), variedRun("c", 2, 40), variedRun("d", 3, 1600)}

	fresh := map[string]string{}
	for _, d := range runs {
		writers.Clear()
		root := filepath.Join(t.TempDir(), d.Run.Run)
		writeRuns(t, root, d)
		fresh[d.Run.Run] = root
	}
	for _, order := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}} {
		writers.Clear()
		before := reusedWriters.Load()
		root := t.TempDir()
		for _, i := range order {
			// One stage each, so that writers pass from one run to the next
			// in this order (sync.Pool hands back what this goroutine put).
			writeRuns(t, root, runs[i])
		}
		if reusedWriters.Load() == before {
			t.Fatal("no writer was reused: the test tests nothing")
		}
		for _, d := range runs {
			for _, table := range schema.Tables {
				want, err := os.ReadFile(filepath.Join(PartitionDir(fresh[d.Run.Run], table, d.Run.Run), FileName))
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(filepath.Join(PartitionDir(root, table, d.Run.Run), FileName))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("order %v: run %s, %s: a reused writer wrote %d bytes, a new one %d, not the same", order, d.Run.Run, table, len(got), len(want))
				}
			}
		}
	}
}
