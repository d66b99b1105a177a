package rundir

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/outlast-dev/outlast/schema"
)

// gatewayTotals recounts a gateway log with encoding/json, independently of
// the gateway package's hand-written scanner.
type gatewayTotals struct {
	sessions, turns, events int
	prompt, cached, output  int64
	firstDone, lastDone     float64
}

func recount(t *testing.T, dir string, t0 time.Time) gatewayTotals {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "gateway.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tot := gatewayTotals{firstDone: 1e18, lastDone: -1e18}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("fixture line not JSON: %s", line)
		}
		ts := func(v any) float64 {
			switch v := v.(type) {
			case float64:
				return v - float64(t0.UnixNano())/1e9
			case string:
				tt, err := time.Parse(time.RFC3339Nano, v)
				if err != nil {
					t.Fatal(err)
				}
				return tt.Sub(t0).Seconds()
			}
			t.Fatalf("bad ts %v", v)
			return 0
		}
		num := func(v any) int64 {
			f, _ := v.(float64)
			return int64(f)
		}
		switch m["ev"] {
		case "session_start":
			tot.sessions++
		case "turn":
			tot.turns++
			if u, ok := m["usage"].(map[string]any); ok {
				tot.prompt += num(u["prompt_tokens"])
				tot.output += num(u["completion_tokens"])
				if d, ok := u["prompt_tokens_details"].(map[string]any); ok {
					tot.cached += num(d["cached_tokens"])
				}
			} else {
				tot.prompt += num(m["prompt_tokens"])
				tot.cached += num(m["cached_tokens"])
				tot.output += num(m["output_tokens"])
			}
			done := ts(m["ts"])
			tot.firstDone = min(tot.firstDone, done)
			tot.lastDone = max(tot.lastDone, done)
		case "park", "resume", "trigger", "rate", "control":
			tot.events++
		}
	}
	return tot
}

func TestFixturesIngestStrictAndMatchInput(t *testing.T) {
	for _, name := range fixtureRuns {
		t.Run(name, func(t *testing.T) {
			res := read(t, fixture(name), Options{Version: "test"})
			d := res.Data
			want := recount(t, fixture(name), d.Run.StartedAt)
			var prompt, cached, output int64
			for _, tr := range d.Turns {
				prompt += tr.PromptTokens
				cached += tr.CachedTokens
				output += tr.OutputTokens
			}
			if len(d.Sessions) != want.sessions || len(d.Turns) != want.turns || len(d.Events) != want.events {
				t.Errorf("sessions/turns/events = %d/%d/%d, input has %d/%d/%d",
					len(d.Sessions), len(d.Turns), len(d.Events), want.sessions, want.turns, want.events)
			}
			if prompt != want.prompt || cached != want.cached || output != want.output {
				t.Errorf("token sums prompt/cached/output = %d/%d/%d, input has %d/%d/%d",
					prompt, cached, output, want.prompt, want.cached, want.output)
			}
			if len(d.Turns) > 0 {
				first, last := d.Turns[0].DoneS, d.Turns[len(d.Turns)-1].DoneS
				if abs(first-want.firstDone) > 1e-6 || abs(last-want.lastDone) > 1e-6 {
					t.Errorf("turn times %.6f..%.6f, input has %.6f..%.6f", first, last, want.firstDone, want.lastDone)
				}
			}
			if d.Run.KVPoolTokens == nil || *d.Run.KVPoolTokens != 400000 {
				t.Errorf("kv pool = %v (%s), want 400000", d.Run.KVPoolTokens, d.Run.KVPoolSource)
			}
			if d.Run.EngineLogFormat != name {
				t.Errorf("engine log format = %q, want %q", d.Run.EngineLogFormat, name)
			}
			if len(d.Engine) == 0 {
				t.Error("no engine samples")
			}
			for _, w := range res.Warnings {
				if strings.Contains(w, "spans") || strings.Contains(w, "drift") {
					t.Errorf("unexpected warning: %s", w)
				}
			}
			if len(d.Run.GatewaySHA256) != 64 || len(d.Run.EngineLogSHA256) != 64 || len(d.Run.ManifestSHA256) != 64 {
				t.Errorf("provenance hashes missing: %+v", d.Run)
			}
		})
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestCompressedInputsGiveTheSameTables(t *testing.T) {
	plain := read(t, fixture("vllm-2026"), Options{Version: "test"})
	dir := copyRun(t, "vllm-2026")
	compress := func(name string, gz bool) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if gz {
			w := gzip.NewWriter(&buf)
			w.Write(b)
			w.Close()
			name += ".gz"
		} else {
			w, _ := zstd.NewWriter(&buf)
			w.Write(b)
			w.Close()
			name += ".zst"
		}
		os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644)
	}
	compress("gateway.jsonl", true)
	compress("engine.log", false)
	compress("metrics.prom", true)
	for _, n := range []string{"gateway.jsonl", "engine.log", "metrics.prom"} {
		os.Remove(filepath.Join(dir, n))
	}
	got := read(t, dir, Options{Version: "test"})
	if len(got.Data.Turns) != len(plain.Data.Turns) || len(got.Data.Engine) != len(plain.Data.Engine) ||
		len(got.Data.Sessions) != len(plain.Data.Sessions) {
		t.Errorf("compressed run differs: turns %d/%d engine %d/%d", len(got.Data.Turns), len(plain.Data.Turns), len(got.Data.Engine), len(plain.Data.Engine))
	}
	if got.Data.Run.GatewaySHA256 == plain.Data.Run.GatewaySHA256 {
		t.Error("hash should be of the bytes as stored (compressed), not of the content")
	}
}

func TestStrictStopsWithPositionLenientKeepsEveryLine(t *testing.T) {
	dir := copyRun(t, "vllm-0.10")
	gw := filepath.Join(dir, "gateway.jsonl")
	b, _ := os.ReadFile(gw)
	n := bytes.Count(b, []byte("\n"))
	bad := []string{
		`{"ts":1756790500,"ev":"turn","session":"x"`,
		`{"ts":1756790500,"ev":"turn","session":"nobody","turn":0,"prompt_tokens":10,"cached_tokens":0,"output_tokens":1}`,
		`not json at all`,
	}
	for _, l := range bad {
		appendLine(t, gw, l)
	}
	_, err := Read(dir, Options{Version: "test"})
	if err == nil || !strings.Contains(err.Error(), "gateway.jsonl:"+itoa(n+1)+":") {
		t.Fatalf("strict error = %v, want one positioned at gateway.jsonl:%d", err, n+1)
	}
	res := read(t, dir, Options{Version: "test", Lenient: true})
	if len(res.Rejects) != len(bad) || res.Data.Run.RejectedLines != int64(len(bad)) {
		t.Fatalf("lenient kept %d rejects, want %d: %+v", len(res.Rejects), len(bad), res.Rejects)
	}
	for i, r := range res.Rejects {
		if string(r.Raw) != bad[i] || r.Pos.Line != n+1+i || r.Err == nil {
			t.Errorf("reject %d = %v %q, want line %d verbatim", i, r, r.Raw, n+1+i)
		}
	}
}

func TestEngineLogWithoutStatsLinesIsALoudWarning(t *testing.T) {
	dir := copyRun(t, "vllm-0.8")
	rewrite(t, filepath.Join(dir, "engine.log"), func(string) string {
		return "INFO 03-20 14:00:01 [api_server.py:1024] Starting vLLM API server\nsomething else\n"
	})
	warned(t, read(t, dir, Options{Version: "test"}), "no vllm stats line recognised")
}

func TestWrongLogZoneIsWarned(t *testing.T) {
	dir := copyRun(t, "vllm-0.8")
	rewrite(t, filepath.Join(dir, "run.yaml"), func(m string) string {
		return strings.Replace(m, "engine:\n", "engine:\n  log_tz: America/New_York\n", 1)
	})
	// The fixture's times are UTC: read as New York's, they are 4 hours off.
	warned(t, read(t, dir, Options{Version: "test"}), "check started_at and engine.log_tz")
}

// TestEngineIdleBeforeTheFirstTurnIsNoWarning checks the span check
// against an SGLang log, which prints batches only while the engine
// works: a run whose first session comes two minutes after its start (a
// rate event there) has engine samples from then on, and that is no sign
// of a wrong clock.
func TestEngineIdleBeforeTheFirstTurnIsNoWarning(t *testing.T) {
	dir := copyRun(t, "sglang-2026")
	rewrite(t, filepath.Join(dir, "run.yaml"), func(m string) string {
		return strings.Replace(m, "started_at: 2026-07-20T10:15:00Z", "started_at: 2026-07-20T10:13:00Z", 1)
	})
	rewrite(t, filepath.Join(dir, "gateway.jsonl"), func(g string) string {
		return `{"ts":1784542380.00,"ev":"rate","arrival_rate":0.035}` + "\n" + g
	})
	res := read(t, dir, Options{Version: "test"})
	for _, w := range res.Warnings {
		if strings.Contains(w, "check started_at") {
			t.Errorf("warned %q", w)
		}
	}
	// The same log read four hours off is still warned of.
	rewrite(t, filepath.Join(dir, "run.yaml"), func(m string) string {
		return strings.Replace(m, "engine:\n", "engine:\n  log_tz: America/New_York\n", 1)
	})
	warned(t, read(t, dir, Options{Version: "test"}), "check started_at and engine.log_tz")
}

func TestSameInputsSameBytes(t *testing.T) {
	dirs := make([]string, len(fixtureRuns))
	for i, name := range fixtureRuns {
		dirs[i] = fixture(name)
	}
	write := func() map[string][]byte {
		root := t.TempDir()
		stageRuns(t, root, false, Options{Version: "test"}, dirs...)
		return datasetFiles(t, root)
	}
	a, b := write(), write()
	if len(a) != len(fixtureRuns)*len(schema.Tables) {
		t.Fatalf("%d files, want %d", len(a), len(fixtureRuns)*len(schema.Tables))
	}
	sameFiles(t, a, b, "two ingests")
}

func TestMissingGatewayIsAnError(t *testing.T) {
	dir := copyRun(t, "vllm-0.8")
	os.Remove(filepath.Join(dir, "gateway.jsonl"))
	if _, err := Read(dir, Options{}); err == nil || !strings.Contains(err.Error(), "missing gateway.jsonl") {
		t.Errorf("err = %v", err)
	}
}

func TestUnknownEngineIsSniffedByMajority(t *testing.T) {
	dir := copyRun(t, "sglang-2026")
	rewrite(t, filepath.Join(dir, "run.yaml"), func(m string) string { return strings.Replace(m, "name: sglang", "name: other", 1) })
	// An SGLang log can open with a few lines in vLLM's format; the
	// majority of headers decides.
	rewrite(t, filepath.Join(dir, "engine.log"), func(log string) string {
		return strings.Repeat("INFO 07-20 10:14:01 [__init__.py:239] Automatically detected platform cuda.\n", 2) + log
	})
	res := read(t, dir, Options{Version: "test"})
	if res.Data.Run.EngineLogFormat != "sglang-2026" || len(res.Data.Engine) == 0 {
		t.Errorf("sniffed format %q with %d samples, want sglang-2026", res.Data.Run.EngineLogFormat, len(res.Data.Engine))
	}
}
