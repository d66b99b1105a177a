package outlastlog

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// BenchmarkEndedSessionBytes measures the live heap a streaming collector
// keeps per ended session, after n sessions that start, take turns 0 and 1
// and end (their ids, made beforehand, are not counted). A map's cost
// depends on where n falls between its doublings, hence several n.
func BenchmarkEndedSessionBytes(b *testing.B) {
	for _, n := range []int{250_000, 750_000, 1_000_000, 2_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) { benchEnded(b, n) })
	}
}

func benchEnded(b *testing.B, n int) {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "s-" + strconv.Itoa(i)
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for b.Loop() {
		before := heap()
		c := NewStreamingCollector(StreamOptions{
			Turn:    func(schema.Turn) error { return nil },
			Session: func(schema.Session) error { return nil },
		})
		var turn schema.Turn
		line := 0
		add := func(rec Record) {
			line++
			rec.Pos = textpos.Pos{File: "g", Line: line}
			if err := c.Add(rec); err != nil {
				b.Fatal(err)
			}
		}
		for _, id := range ids {
			add(Record{Ev: EvSessionStart, Start: &SessionStart{Session: id, Origin: "base"}})
			for t := range int32(2) {
				turn = schema.Turn{Session: id, Turn: t}
				add(Record{Ev: EvTurn, Turn: &turn})
			}
			add(Record{Ev: EvSessionEnd, End: &SessionEnd{Session: id, Status: "done"}})
		}
		after := heap()
		b.ReportMetric(float64(after-before)/float64(n), "bytes/session")
		runtime.KeepAlive(c)
	}
}

// TestEndedSetMerges checks the rules for records after a session's end
// once the ended sessions span the sorted array and the recent map, across
// several merges: streaming gives the same errors as in memory (with the
// first lines left to the caller) and the same origins and turns.
func TestEndedSetMerges(t *testing.T) {
	const n = 3*minRecent + 123
	origins := []string{"base", "burst", "replay"}
	var recs []Record
	line := 0
	add := func(rec Record) {
		line++
		rec.Pos = textpos.Pos{File: "g", Line: line}
		recs = append(recs, rec)
	}
	id := func(i int) string { return "s-" + strconv.Itoa(i) }
	turn := func(i int, tn int32) Record {
		return Record{Ev: EvTurn, Turn: &schema.Turn{Session: id(i), Turn: tn}}
	}
	for i := range n {
		add(Record{Ev: EvSessionStart, Start: &SessionStart{Session: id(i), Origin: origins[i%3]}})
		add(turn(i, 0))
		add(Record{Ev: EvSessionEnd, End: &SessionEnd{Session: id(i), Status: "done"}})
	}
	// Sessions in the array (0, n/2) and in the recent map (n-1).
	for _, i := range []int{0, n / 2, n - 1} {
		add(turn(i, 1))  // accepted after the end
		add(turn(i, 1))  // repeated after the end
		add(turn(i, 0))  // repeated before the end
		add(turn(i, 90)) // beyond the inline bits
		add(turn(i, 90))
		add(Record{Ev: EvSessionStart, Start: &SessionStart{Session: id(i), Origin: "base"}})
		add(Record{Ev: EvSessionEnd, End: &SessionEnd{Session: id(i)}})
	}
	add(turn(n, 0)) // never started

	run := func(c *Collector) []string {
		var errs []string
		for _, rec := range recs {
			if err := c.Add(rec); err != nil {
				errs = append(errs, err.Error())
			}
		}
		return errs
	}
	var memTurns, streamTurns []string
	mem := NewCollector()
	memErrs := run(mem)
	_, ts, _ := mem.Tables(0)
	for _, tr := range ts {
		if tr.Turn != 0 {
			memTurns = append(memTurns, fmt.Sprintf("%s/%d %s", tr.Session, tr.Turn, tr.Origin))
		}
	}
	stream := NewStreamingCollector(StreamOptions{
		Turn: func(tr schema.Turn) error {
			if tr.Turn != 0 {
				streamTurns = append(streamTurns, fmt.Sprintf("%s/%d %s", tr.Session, tr.Turn, tr.Origin))
			}
			return nil
		},
		Session: func(schema.Session) error { return nil },
	})
	streamErrs := run(stream)
	for name, c := range map[string]*Collector{"in memory": mem, "streaming": stream} {
		checkRuns(t, name, &c.ended, n-minRecent)
	}

	var want []string
	for k, i := range []int{0, n / 2, n - 1} {
		at := func(j int) string { return "g:" + strconv.Itoa(3*n+7*k+j) }
		s := id(i)
		want = append(want,
			fmt.Sprintf(`%s: session %q turn 1 is repeated (first at line %d)`, at(2), s, 3*n+7*k+1),
			fmt.Sprintf(`%s: session %q turn 0 is repeated (first at line %d)`, at(3), s, 3*i+2),
			fmt.Sprintf(`%s: session %q turn 90 is repeated (first at line %d)`, at(5), s, 3*n+7*k+4),
			fmt.Sprintf(`%s: session %q starts again (first session_start at line %d)`, at(6), s, 3*i+1),
			fmt.Sprintf(`%s: session %q ends again (first session_end at line %d)`, at(7), s, 3*i+3))
	}
	want = append(want, fmt.Sprintf(`g:%d: turn for session %q, which has no session_start before this line`, 3*n+22, id(n)))
	if fmt.Sprint(memErrs) != fmt.Sprint(want) {
		t.Errorf("in memory:\n%s\nwant:\n%s", strings.Join(memErrs, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if j := strings.Index(want[i], "at line "); j >= 0 {
			want[i] = want[i][:j] + "at an earlier line)"
		}
	}
	if fmt.Sprint(streamErrs) != fmt.Sprint(want) {
		t.Errorf("streaming:\n%s\nwant:\n%s", strings.Join(streamErrs, "\n"), strings.Join(want, "\n"))
	}
	var wantTurns []string
	for _, i := range []int{0, n / 2, n - 1} {
		wantTurns = append(wantTurns, id(i)+"/1 "+origins[i%3], id(i)+"/90 "+origins[i%3])
	}
	if fmt.Sprint(streamTurns) != fmt.Sprint(wantTurns) || fmt.Sprint(memTurns) != fmt.Sprint(wantTurns) {
		t.Errorf("turns after the end:\nstreamed  %v\nin memory %v\nwant      %s", streamTurns, memTurns, wantTurns)
	}
}

// checkRuns checks that s holds at least n merged entries in runs that are
// sorted, hold the keys of their top bits, are allocated at their exact
// size, and are not much longer than runLen: exact ids too are spread.
func checkRuns(t *testing.T, name string, s *endedSet, n int) {
	t.Helper()
	if s.n < n {
		t.Fatalf("%s: %d sessions merged, want %d or more: the test misses the merges", name, s.n, n)
	}
	total := 0
	for h, r := range s.runs {
		total += len(r)
		if len(r) > 4*runLen || cap(r) != len(r) {
			t.Errorf("%s: run %d has %d entries, capacity %d", name, h, len(r), cap(r))
		}
		for i, e := range r {
			if e.key>>s.shift != uint64(h) || i > 0 && r[i-1].key >= e.key {
				t.Fatalf("%s: run %d entry %d key %#x out of place", name, h, i, e.key)
			}
		}
	}
	if total != s.n {
		t.Errorf("%s: %d entries in the runs, counted %d", name, total, s.n)
	}
}
