package rundir

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrefixCachingUnstated leaves engine.prefix_caching out of run.yaml:
// the run takes it from the engine log's startup arguments, else from the
// engine's default, and says so; never a silent "off".
func TestPrefixCachingUnstated(t *testing.T) {
	keep := func(m string) string { return m }
	for _, tc := range []struct {
		name, fixture string
		log           func(string) string // edits the engine log; nil removes it
		want          bool
		from          string
		metrics       func(string) string // edits the metrics; nil removes them
		off           bool                // the log, the metrics or the default say off
	}{
		{"vLLM arguments say off", "vllm-0.10", func(l string) string {
			return "INFO 09-02 05:19:00 [utils.py:326] non-default args: {'model': 'Qwen/Qwen3-8B', 'enable_prefix_caching': False}\n" + l
		}, true, "engine.log's startup arguments", keep, true},
		{"SGLang radix cache disabled", "sglang-2026", func(l string) string {
			return "[2026-07-20 10:14:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', disable_radix_cache=True, chunked_prefill_size=8192)\n" + l
		}, true, "engine.log's startup arguments", keep, true},
		{"vLLM V1 log silent", "vllm-0.8", func(l string) string {
			return strings.ReplaceAll(l, "enable_prefix_caching", "enable_chunked_prefill")
		}, true, "both engines' default", nil, false},
		{"no engine log", "vllm-2026", nil, true, "no engine log", nil, false},
		{"no engine log, vLLM before 0.8", "vllm-2026", nil, true, "the engine of vLLM 0.5.4", nil, true},
		{"no engine log, the metrics say off", "vllm-2026", nil, true, "the metrics' cache_config_info", func(m string) string {
			return strings.ReplaceAll(m, `enable_prefix_caching="True"`, `enable_prefix_caching="False"`)
		}, true},
	} {
		dir := copyRun(t, tc.fixture)
		rewrite(t, filepath.Join(dir, "run.yaml"), func(m string) string {
			if strings.Contains(tc.name, "before 0.8") {
				m = strings.Replace(m, "version: 0.28.0", "version: 0.5.4", 1)
			}
			return strings.Replace(m, "  prefix_caching: true\n", "", 1)
		})
		if tc.log == nil {
			os.Remove(filepath.Join(dir, "engine.log"))
		} else if l := readFile(t, filepath.Join(dir, "engine.log")); tc.log(l) != l {
			writeFile(t, filepath.Join(dir, "engine.log"), tc.log(l))
		}
		if mp := filepath.Join(dir, "metrics.prom"); tc.metrics == nil {
			os.Remove(mp)
		} else if _, err := os.Stat(mp); err == nil {
			writeFile(t, mp, tc.metrics(readFile(t, mp)))
		}
		res := read(t, dir, Options{Version: "test"})
		if got := res.Data.Run.PrefixCaching; got != tc.want {
			t.Errorf("%s: prefix_caching %t, want %t", tc.name, got, tc.want)
		}
		warned(t, res, "does not give engine.prefix_caching: taken as")
		warned(t, res, tc.from)
		if tc.off {
			// The fixtures' turns report cached tokens: a cache that
			// is off hits nothing, and the turns are believed.
			warned(t, res, "turn(s) report cached prompt tokens")
		}
	}
}

// TestPrefixCachingContradicted states engine.prefix_caching: true in
// run.yaml while the engine log's startup arguments turn it off: the
// manifest's is kept, with a warning naming both.
func TestPrefixCachingContradicted(t *testing.T) {
	dir := copyRun(t, "vllm-0.10")
	l := readFile(t, filepath.Join(dir, "engine.log"))
	writeFile(t, filepath.Join(dir, "engine.log"), "INFO 09-02 05:19:00 [utils.py:326] non-default args: {'model': 'Qwen/Qwen3-8B', 'enable_prefix_caching': False}\n"+l)
	res := read(t, dir, Options{Version: "test"})
	if !res.Data.Run.PrefixCaching {
		t.Error("prefix_caching false, want run.yaml's true")
	}
	warned(t, res, "run.yaml gives engine.prefix_caching: true, but engine.log's startup arguments turn it off")
}

// TestKeysOfAnotherFormatAreWarned gives files.benchmark and
// files.clock_offset_s to a run of outlast's own gateway log: they do
// nothing there, which a warning says.
func TestKeysOfAnotherFormatAreWarned(t *testing.T) {
	dir := copyRun(t, "vllm-0.8")
	rewrite(t, filepath.Join(dir, "run.yaml"), func(m string) string {
		return m + "files:\n  benchmark: 0\n  clock_offset_s: 5\n"
	})
	res := read(t, dir, Options{Version: "test"})
	warned(t, res, "files.benchmark applies to GuideLLM reports only; the gateway log is outlast: ignored")
	warned(t, res, "files.clock_offset_s applies to inference-perf files only; the gateway log is outlast: ignored")
}

// TestNamedFileMissingIsAnError names files in run.yaml that are not in
// the run directory: a name of run.yaml's own is no optional default, and
// a typo in it must not pass silently. The default names may be absent.
func TestNamedFileMissingIsAnError(t *testing.T) {
	for _, key := range []string{"engine_log: vllm.out", "metrics: scrapes.txt"} {
		dir := copyRun(t, "vllm-0.8")
		rewrite(t, filepath.Join(dir, "run.yaml"), func(m string) string { return m + "files:\n  " + key + "\n" })
		name := strings.TrimSpace(strings.SplitN(key, ":", 2)[1])
		if _, err := Read(dir, Options{}); err == nil || !strings.Contains(err.Error(), "missing "+name) {
			t.Errorf("%s: err = %v, want missing %s", key, err, name)
		}
	}
	dir := copyRun(t, "vllm-0.8")
	rewrite(t, filepath.Join(dir, "run.yaml"), func(m string) string {
		return m + "files:\n  engine_log: engine.log\n  metrics: metrics.prom\n"
	})
	os.Remove(filepath.Join(dir, "engine.log"))
	os.Remove(filepath.Join(dir, "metrics.prom"))
	read(t, dir, Options{Version: "test"})
}

// TestEmptyGatewayIsALoudWarning reads a run whose gateway log holds no
// record: it ingests, says the run has no turn, and leaves
// runs.cache_reported null (nothing to tell from), not false.
func TestEmptyGatewayIsALoudWarning(t *testing.T) {
	dir := copyRun(t, "vllm-0.8")
	writeFile(t, filepath.Join(dir, "gateway.jsonl"), "")
	res := read(t, dir, Options{Version: "test"})
	warned(t, res, "no turn in it")
	if c := res.Data.Run.CacheReported; c != nil {
		t.Errorf("cache_reported = %v, want null", *c)
	}
}

// TestNotGzipNamesTheRun reads a gateway.jsonl.gz that is not gzip: the
// error names the run directory, as every other does.
func TestNotGzipNamesTheRun(t *testing.T) {
	dir := copyRun(t, "vllm-0.8")
	os.Rename(filepath.Join(dir, "gateway.jsonl"), filepath.Join(dir, "gateway.jsonl.gz"))
	_, err := Read(dir, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), dir+": gateway.jsonl.gz: gzip") {
		t.Errorf("err = %v, want it to begin %q", err, dir+": gateway.jsonl.gz: gzip")
	}
}

// TestRecordsFarFromTheRunAreWarned moves a run's started_at six days
// early, and gives another a trigger after its end: both are warned of.
func TestRecordsFarFromTheRunAreWarned(t *testing.T) {
	dir := copyRun(t, "vllm-0.8")
	rewrite(t, filepath.Join(dir, "run.yaml"), func(m string) string {
		return strings.Replace(m, "started_at: 2025-03-20T14:00:00Z", "started_at: 2025-03-26T14:00:00Z", 1)
	})
	warned(t, read(t, dir, Options{Version: "test"}), "but the run is planned for 0..300 s: check started_at")
	dir = copyRun(t, "vllm-0.8")
	rewrite(t, filepath.Join(dir, "run.yaml"), func(m string) string {
		return strings.Replace(m, "arm: none\n", "arm: burst\ntrigger: {kind: burst, start_s: 900, end_s: 1200, extra_rate: 0.05}\n", 1)
	})
	warned(t, read(t, dir, Options{Version: "test"}), "trigger.start_s 900 is at or after the run's end")
}

// TestCutGzipIsWarned reads a gateway log whose gzip stream was cut in the
// middle (the compressing writer of a run stopped mid-run): what it holds
// is read, its cut last line left out, and the cut stream warned of.
func TestCutGzipIsWarned(t *testing.T) {
	dir := copyRun(t, "vllm-0.8")
	gz := gzipped(t, filepath.Join(dir, "gateway.jsonl"))
	writeFile(t, filepath.Join(dir, "gateway.jsonl.gz"), gz[:len(gz)/2])
	res := read(t, dir, Options{Version: "test"})
	warned(t, res, "gateway.jsonl.gz: the compressed stream ends before its end marker")
	warned(t, res, "the last line is cut short")
	if len(res.Data.Turns) == 0 {
		t.Error("no turn read from the cut file")
	}
}

// TestCutGzipEngineLogSaysSo cuts a gzip engine log mid-line: its last
// stats line is cut, an error in strict mode, and the error says the
// file was cut.
func TestCutGzipEngineLogSaysSo(t *testing.T) {
	dir := copyRun(t, "vllm-0.8")
	gz := gzipped(t, filepath.Join(dir, "engine.log"))
	// Cut where a stats line is cut: the decompressed text up to then
	// ends mid-line in most places; try offsets until one does.
	for n := len(gz) / 2; n < len(gz)-8; n += 7 {
		writeFile(t, filepath.Join(dir, "engine.log.gz"), gz[:n])
		_, err := Read(dir, Options{})
		if err != nil {
			if !strings.Contains(err.Error(), "engine.log.gz's compressed stream ends before its end marker") {
				t.Errorf("err = %v, want it to say the stream was cut", err)
			}
			return
		}
	}
	t.Fatal("no cut gave an error")
}

// TestTimesOutOfOrderAreWarned appends turns whose times contradict each
// other: a first token before the turn was sent, a turn done before its
// session arrived. They are kept as written, and warned of.
func TestTimesOutOfOrderAreWarned(t *testing.T) {
	dir := copyRun(t, "vllm-0.8")
	appendLine(t, filepath.Join(dir, "gateway.jsonl"), `{"ts":1742479250,"ev":"session_start","session":"late"}`)
	appendLine(t, filepath.Join(dir, "gateway.jsonl"), `{"ts":1742479205,"ev":"turn","session":"late","turn":0,"prompt_tokens":10,"output_tokens":1}`)
	appendLine(t, filepath.Join(dir, "gateway.jsonl"), `{"ts":1742479260,"ev":"turn","session":"late","turn":1,"sent_ts":1742479255,"first_token_ts":1742479254,"prompt_tokens":10,"output_tokens":1}`)
	res := read(t, dir, Options{Version: "test"})
	warned(t, res, "gateway.jsonl:51: 2 turn(s) with times out of order")
}

// gzipped removes the file at path and returns its bytes gzipped.
func gzipped(t *testing.T, path string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(readFile(t, path)))
	zw.Close()
	os.Remove(path)
	return buf.String()
}

func TestBeforeV1(t *testing.T) {
	for v, want := range map[string]bool{
		"0.5.4": true, "v0.7.3": true, "0.6.6.post1": true, "0.8.0": false, "0.10.1": false,
		"0.28.0": false, "1.0.0": false, "": false, "main": false, "0": false,
	} {
		if got := beforeV1(v); got != want {
			t.Errorf("beforeV1(%q) = %t, want %t", v, got, want)
		}
	}
}
