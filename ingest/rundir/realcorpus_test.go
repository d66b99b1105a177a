package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/ingest/inputs"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// The real-outputs corpus: every fixture holding a real tool-written
// output has an expect.json beside it, the values scripts/real-expected.py
// reads from the raw files with Python's json and re (never with outlast),
// following docs/run-format.md's field tables (python3
// scripts/real-expected.py writes them; --check says whether one is
// stale). TestRealCorpus reads each with outlast's readers, strictly
// unless the file says why not (then it checks that a strict reading
// refuses it), and compares every turn's times, tokens and status, and a
// run directory's engine table.
//
// Real files without a request log are not in it: the inference-perf
// summaries (inference-perf-demo-kubecon-na-2025) and config.yaml
// (inference-perf-slo-lab-config, read by ingest/runinit's tests); nor
// fixtures/real-lines, whose hand-read values have their own tests.

// expectFile is an expect.json.
type expectFile struct {
	Read       string       `json:"read"` // strict | lenient
	LenientWhy string       `json:"lenient_why"`
	Kind       string       `json:"kind"` // export | rundir
	File       string       `json:"file"`
	Clock      string       `json:"clock"` // unix | perf_counter
	Turns      []expectTurn `json:"turns"`
	Engine     *struct {
		Samples       int       `json:"samples"`
		LeftOutBefore int       `json:"left_out_before"`
		LeftOutAfter  int       `json:"left_out_after"`
		FirstT        float64   `json:"first_t"`
		LastT         float64   `json:"last_t"`
		Kinds         []string  `json:"kinds"`
		Running       []float64 `json:"running"`
		KVPoolTokens  *int64    `json:"kv_pool_tokens"`
	} `json:"engine"`
}

type expectTurn struct {
	Ready, Sent, FirstToken *float64
	Done                    float64
	Prompt                  int64  `json:"prompt_tokens"`
	Output                  int64  `json:"output_tokens"`
	Cached                  *int64 `json:"cached_tokens"`
	Status                  string `json:"status"`
}

func (e *expectTurn) UnmarshalJSON(b []byte) error {
	var v struct {
		Ready      *float64 `json:"ready"`
		Sent       *float64 `json:"sent"`
		FirstToken *float64 `json:"first_token"`
		Done       float64  `json:"done"`
		Prompt     int64    `json:"prompt_tokens"`
		Output     int64    `json:"output_tokens"`
		Cached     *int64   `json:"cached_tokens"`
		Status     string   `json:"status"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*e = expectTurn{v.Ready, v.Sent, v.FirstToken, v.Done, v.Prompt, v.Output, v.Cached, v.Status}
	return nil
}

// gotTurn is a turn as outlast read it, its times Unix seconds (or the
// export's own clock), and whether its cached count was reported.
type gotTurn struct {
	row            schema.Turn
	cachedReported bool
}

func TestRealCorpus(t *testing.T) {
	var dirs []string
	for _, tree := range []string{"real", "real-wild"} {
		found, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", tree, "*", "expect.json"))
		for _, f := range found {
			dirs = append(dirs, filepath.Dir(f))
		}
	}
	if len(dirs) < 6 {
		t.Fatalf("%d fixtures with expect.json, want at least 6: run python3 scripts/real-expected.py", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var want expectFile
			b, err := os.ReadFile(filepath.Join(dir, "expect.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			switch want.Kind {
			case "export":
				path := filepath.Join(dir, want.File)
				if want.Read == "lenient" {
					if _, err := readExport(path, false); err == nil {
						t.Errorf("read strictly, though %s", want.LenientWhy)
					}
				}
				got, err := readExport(path, want.Read == "lenient")
				if err != nil {
					t.Fatal(err)
				}
				compareTurns(t, got, want)
			case "rundir":
				res := read(t, dir, Options{Version: "test"})
				t0 := float64(res.Data.Run.StartedAt.UnixMicro()) / 1e6
				var got []gotTurn
				for _, tu := range res.Data.Turns {
					row := tu
					shift := func(p *float64) *float64 {
						if p == nil {
							return nil
						}
						v := *p + t0
						return &v
					}
					row.ReadyS, row.SentS, row.FirstTokenS, row.DoneS = shift(tu.ReadyS), shift(tu.SentS), shift(tu.FirstTokenS), tu.DoneS+t0
					got = append(got, gotTurn{row, res.Data.Run.CacheReported != nil && *res.Data.Run.CacheReported})
				}
				compareTurns(t, got, want)
				compareEngine(t, res, want)
			default:
				t.Fatalf("kind %q", want.Kind)
			}
		})
	}
}

// readExport reads a load generator's export through the table of input
// formats, as ingest does, its times Unix seconds.
func readExport(path string, lenient bool) ([]gotTurn, error) {
	name, err := inputs.Detect(path)
	if err != nil {
		return nil, err
	}
	format, ok := inputs.RequestNamed(name)
	if !ok || format.Open == nil {
		return nil, fmt.Errorf("%s: %s is no export format", path, name)
	}
	lr, err := lineio.Open(path, filepath.Base(path))
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	ex, err := format.Open(lr, inputs.Options{Path: path, Lenient: lenient})
	if err != nil {
		return nil, err
	}
	defer ex.Close()
	var out []gotTurn
	for {
		if _, err := ex.NextRun(); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		src := ex.Turns(time.Unix(0, 0).UTC())
		for {
			tu, err := src.Next()
			if err == io.EOF {
				break
			}
			var pe *textpos.ParseError
			if lenient && errors.As(err, &pe) {
				continue // kept as a reject of the run, as --lenient does
			}
			if err != nil {
				return nil, err
			}
			// The turn's times point into the reader's own records: copy.
			row := tu.Row
			row.ReadyS, row.SentS, row.FirstTokenS = clonePtr(row.ReadyS), clonePtr(row.SentS), clonePtr(row.FirstTokenS)
			out = append(out, gotTurn{row, tu.CachedReported})
		}
		ex.Done()
	}
	return out, lr.Err()
}

func compareTurns(t *testing.T, got []gotTurn, want expectFile) {
	t.Helper()
	sort.SliceStable(got, func(i, j int) bool {
		a, b := got[i].row, got[j].row
		if *a.SentS != *b.SentS {
			return *a.SentS < *b.SentS
		}
		return a.DoneS < b.DoneS
	})
	if len(got) != len(want.Turns) {
		t.Fatalf("%d turns, want %d", len(got), len(want.Turns))
	}
	// A perf_counter clock is placed on the wall clock by an anchor of
	// outlast's: compare the times from the first request's sending.
	var shift float64
	if want.Clock == "perf_counter" {
		shift = *got[0].row.SentS - *want.Turns[0].Sent
	}
	for i, w := range want.Turns {
		g := got[i].row
		for _, c := range []struct {
			name      string
			got, want *float64
		}{{"ready", g.ReadyS, w.Ready}, {"sent", g.SentS, w.Sent}, {"first token", g.FirstTokenS, w.FirstToken}, {"done", &g.DoneS, &w.Done}} {
			switch {
			case (c.got == nil) != (c.want == nil):
				t.Errorf("turn %d %s: %s, want %s", i, c.name, fmtPtr(c.got), fmtPtr(c.want))
			case c.got != nil && math.Abs(*c.got-shift-*c.want) > 2e-6:
				t.Errorf("turn %d %s: %.6f, want %.6f", i, c.name, *c.got-shift, *c.want)
			}
		}
		if g.PromptTokens != w.Prompt || g.OutputTokens != w.Output || g.Status != w.Status {
			t.Errorf("turn %d: %d prompt, %d output, %s; want %d, %d, %s", i, g.PromptTokens, g.OutputTokens, g.Status, w.Prompt, w.Output, w.Status)
		}
		switch {
		case w.Cached == nil && got[i].cachedReported:
			t.Errorf("turn %d: cached %d reported, want none", i, g.CachedTokens)
		case w.Cached != nil && (!got[i].cachedReported || g.CachedTokens != *w.Cached):
			t.Errorf("turn %d: cached %d (reported %v), want %d", i, g.CachedTokens, got[i].cachedReported, *w.Cached)
		}
	}
}

var leftOut = regexp.MustCompile(`(\d+) before it|(\d+) after it`)

func compareEngine(t *testing.T, res *Result, want expectFile) {
	t.Helper()
	w := want.Engine
	eng := res.Data.Engine
	if len(eng) != w.Samples {
		t.Fatalf("%d engine samples, want %d", len(eng), w.Samples)
	}
	if eng[0].TS != w.FirstT || eng[len(eng)-1].TS != w.LastT {
		t.Errorf("samples from %g to %g s, want %g to %g", eng[0].TS, eng[len(eng)-1].TS, w.FirstT, w.LastT)
	}
	var kinds []string
	var running []float64
	for _, s := range eng {
		if !slices.Contains(kinds, s.Kind) {
			kinds = append(kinds, s.Kind)
		}
		if s.Running != nil && !slices.Contains(running, *s.Running) {
			running = append(running, *s.Running)
		}
	}
	sort.Strings(kinds)
	sort.Float64s(running)
	if !slices.Equal(kinds, w.Kinds) || !slices.Equal(running, w.Running) {
		t.Errorf("kinds %v, running %v; want %v, %v", kinds, running, w.Kinds, w.Running)
	}
	if p := res.Data.Run.KVPoolTokens; (p == nil) != (w.KVPoolTokens == nil) || p != nil && *p != *w.KVPoolTokens {
		t.Errorf("KV pool %s, want %s", fmtPtr(p), fmtPtr(w.KVPoolTokens))
	}
	before, after := 0, 0
	for _, warn := range res.Warnings {
		if !strings.Contains(warn, "engine samples lie outside the run") {
			continue
		}
		for _, m := range leftOut.FindAllStringSubmatch(warn, -1) {
			if m[1] != "" {
				before, _ = strconv.Atoi(m[1])
			} else {
				after, _ = strconv.Atoi(m[2])
			}
		}
	}
	if before != w.LeftOutBefore || after != w.LeftOutAfter {
		t.Errorf("left out %d before, %d after; want %d, %d", before, after, w.LeftOutBefore, w.LeftOutAfter)
	}
}

func clonePtr(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func fmtPtr[T any](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}
