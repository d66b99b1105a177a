package rundir

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// wrapLines returns log with each line behind prefix(i), the 0-based line
// number.
func wrapLines(log string, prefix func(i int) string) string {
	return mapLines(log, func(i int, l string) string { return prefix(i) + l })
}

// mapLines returns log with each line l, the i-th from 0, replaced by
// wrap(i, l).
func mapLines(log string, wrap func(i int, l string) string) string {
	lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	for i, l := range lines {
		lines[i] = wrap(i, l)
	}
	return strings.Join(lines, "\n") + "\n"
}

// jsonString returns s as a JSON string.
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestWrappedEngineLogs reads fixture logs as log collectors leave them:
// every line behind a wrapper gives the samples of the plain log, and the
// wrapper is named in the runs table's engine_log_format.
func TestWrappedEngineLogs(t *testing.T) {
	prefix := func(p string) func(int, string) string { return func(_ int, l string) string { return p + l } }
	wrappers := []struct {
		name string
		wrap func(i int, line string) string
	}{
		{"docker-compose", prefix("engine-1  | ")},
		{"container-rfc3339", func(i int, l string) string { return fmt.Sprintf("2020-01-01T00:00:%02d.5Z ", i%60) + l }},
		{"journald", prefix("Jan 01 00:00:00 gpu-node-3 vllm[4242]: ")},
		{"cri", prefix("2020-01-01T02:00:00.1234+02:00 stdout F ")},
		{"container-rfc3339+docker-compose", prefix("engine-1  | 2020-01-01T00:00:00Z ")},
		{"launcher", prefix("[2020-01-01 00:00:00] INFO ")},
		{"kubectl-prefix", prefix("[pod/engine-7d9f8-x2k4p/engine] ")},
		{"ray", prefix("(RayWorkerWrapper pid=1234, ip=10.0.0.2) ")},
		{"ray", prefix("\x1b[2m\x1b[36m(pid=1234, ip=10.0.0.2)\x1b[0m ")}, // Ray's prefix of a worker with no actor
		// An application's logging-cookbook header, its logger's and vLLM's.
		{"pylogging", prefix("2020-01-01 00:00:00,000 - root - INFO - ")},
		{"pylogging", prefix("2020-01-01 00:00:00,000 - vllm - INFO - ")},
		{"docker-json", func(i int, l string) string {
			return `{"log":` + jsonString(l+"\n") + fmt.Sprintf(`,"stream":"stdout","time":"2020-01-01T00:00:%02d.5Z"}`, i%60)
		}},
		{"docker-json", func(i int, l string) string { // padded by a terminal copy
			return `{"log":` + jsonString(l+"\n") + `,"stream":"stdout","time":"2020-01-01T00:00:00Z"}   `
		}},
		{"journald-json", func(i int, l string) string {
			return fmt.Sprintf(`{"__CURSOR":"s=1;i=%x","__REALTIME_TIMESTAMP":"15778368%02d500000","SYSLOG_IDENTIFIER":"vllm","MESSAGE":%s,"_PID":"4242"}`, i, i%60, jsonString(l))
		}},
		{"journald-json", func(i int, l string) string { // journalctl -o json-seq
			return fmt.Sprintf("\x1e"+`{"__CURSOR":"s=1;i=%x","__REALTIME_TIMESTAMP":"1577836800000000","MESSAGE":%s}`, i, jsonString(l))
		}},
	}
	for _, run := range []string{"vllm-0.10", "sglang-2026"} {
		plain := read(t, fixture(run), Options{Version: "test"})
		for _, w := range wrappers {
			if w.name == "launcher" && strings.HasPrefix(run, "sglang") {
				continue // a launcher's stamp with a level word is followed by a vLLM line
			}
			t.Run(run+"/"+w.name, func(t *testing.T) {
				dir := copyRun(t, run)
				rewrite(t, filepath.Join(dir, "engine.log"), func(log string) string { return mapLines(log, w.wrap) })
				got := read(t, dir, Options{Version: "test"})
				if f := got.Data.Run.EngineLogFormat; f != run+"+"+w.name {
					t.Errorf("engine_log_format %q, want %q", f, run+"+"+w.name)
				}
				sameEngine(t, got.Data.Engine, plain.Data.Engine)
			})
		}
	}
}

// TestHeaderlessJournalLog reads a vLLM 0.8 log as a journal handler
// keeps it: each line an entry of journalctl -o json whose MESSAGE lacks
// vLLM's header, so that the entries' stamps time the stats lines. No
// marker dates the log (0.8's stats line has no "Engine NNN: "), and
// engine_log_format names the engine and the wrapper, not "".
func TestHeaderlessJournalLog(t *testing.T) {
	plain := read(t, fixture("vllm-0.8"), Options{Version: "test"})
	dir := copyRun(t, "vllm-0.8")
	rewrite(t, filepath.Join(dir, "engine.log"), func(log string) string {
		return mapLines(log, func(i int, l string) string {
			if j := strings.Index(l, "] "); j > 0 {
				l = l[j+2:]
			}
			return fmt.Sprintf(`{"__CURSOR":"s=1;i=%x","__REALTIME_TIMESTAMP":"%d","SYSLOG_IDENTIFIER":"vllm","MESSAGE":%s}`, i, 1742479200000000+int64(i)*1000000, jsonString(l))
		})
	})
	got := read(t, dir, Options{Version: "test"})
	if f := got.Data.Run.EngineLogFormat; f != "vllm+journald-json" || len(got.Data.Engine) != len(plain.Data.Engine) {
		t.Errorf("engine_log_format %q with %d samples, want vllm+journald-json with %d", f, len(got.Data.Engine), len(plain.Data.Engine))
	}
}

// sameEngine checks that two engine series hold the same samples.
func sameEngine(t *testing.T, got, want []schema.EngineSample) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d engine samples, want %d", len(got), len(want))
	}
	for i := range want {
		if g, w := fmt.Sprintf("%+v", deref(got[i])), fmt.Sprintf("%+v", deref(want[i])); g != w {
			t.Fatalf("sample %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

// deref shows a sample's optional fields by value.
func deref(s schema.EngineSample) string {
	f := func(p *float64) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprint(*p)
	}
	n := func(p *int64) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprint(s.TS, s.Kind, s.EngineIndex, s.Line, f(s.Running), f(s.Waiting), f(s.KVUsage), n(s.TokensUsed),
		f(s.PromptTput), f(s.GenTput), f(s.LoggedHitRate), f(s.Preemptions), n(s.NewSeqs), n(s.NewTokens), n(s.CachedTokens))
}

// TestWrappedLogIsSniffed sniffs the engine of a wrapped log.
func TestWrappedLogIsSniffed(t *testing.T) {
	dir := copyRun(t, "vllm-0.10")
	rewrite(t, filepath.Join(dir, "run.yaml"), func(m string) string { return strings.Replace(m, "name: vllm", "name: other", 1) })
	rewrite(t, filepath.Join(dir, "engine.log"), func(log string) string {
		return wrapLines(log, func(int) string { return "Sep 02 05:20:00 node vllm[118]: " })
	})
	res := read(t, dir, Options{Version: "test"})
	if f := res.Data.Run.EngineLogFormat; f != "vllm-0.10+journald" || len(res.Data.Engine) == 0 {
		t.Errorf("sniffed %q with %d samples, want vllm-0.10+journald", f, len(res.Data.Engine))
	}
}

// TestBatchLinesWithoutTimeAreALoudWarning strips the headers off an
// SGLang log: its batch lines carry no time, give no sample, and say so.
func TestBatchLinesWithoutTimeAreALoudWarning(t *testing.T) {
	dir := copyRun(t, "sglang-2026")
	rewrite(t, filepath.Join(dir, "engine.log"), func(log string) string {
		lines := strings.Split(log, "\n")
		for i, l := range lines {
			if j := strings.Index(l, "] "); strings.HasPrefix(l, "[") && j > 0 {
				lines[i] = l[j+2:]
			}
		}
		return strings.Join(lines, "\n")
	})
	res := read(t, dir, Options{Version: "test"})
	for _, s := range res.Data.Engine {
		if s.Source == schema.SourceLog {
			t.Fatalf("a sample from a line without a time: %+v", s)
		}
	}
	warned(t, res, "sglang stats lines carry no time")
}

// TestDamagedBatchLine: a batch line with fields cut out is a positioned
// error in strict mode and a reject in lenient mode, like vLLM's.
func TestDamagedBatchLine(t *testing.T) {
	for _, tc := range []struct{ run, line string }{
		{"sglang-2026", "[2026-07-20 10:17:00] Prefill batch, #new-seq: 1, #new-token: 896, #cached-tounning-req: 45, #queue-req: 81, #pending-token: 70187, npu graph: False, input th"},
		{"vllm-0.10", ", Running: 10 reqs, Waiting: 0 reqs, GPU KV cache usage: 3.5%, Prefix cache hit rate: 53.7%"},
	} {
		dir := copyRun(t, tc.run)
		log := filepath.Join(dir, "engine.log")
		n := strings.Count(readFile(t, log), "\n")
		appendLine(t, log, tc.line)
		_, err := Read(dir, Options{Version: "test"})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("engine.log:%d:", n+1)) {
			t.Errorf("%s: strict error %v, want one at engine.log:%d", tc.run, err, n+1)
		}
		res := read(t, dir, Options{Version: "test", Lenient: true})
		if len(res.Rejects) != 1 || string(res.Rejects[0].Raw) != tc.line || res.Data.Run.RejectedLines != 1 {
			t.Errorf("%s: lenient rejects %v, want the line", tc.run, res.Rejects)
		}
	}
}
