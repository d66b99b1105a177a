package enginelog

import (
	"fmt"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/textpos"
)

func TestStripANSI(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[32mINFO\x1b[0m \x1b[90m05-19 14:03:12\x1b[0m msg\x1b(B": "INFO 05-19 14:03:12 msg",
		// Control strings, ended by BEL or ST: the Buildkite agent's line
		// stamps, also inside a line written slowly; OSC 8 hyperlinks.
		"\x1b_bk;t=1760594924123\x07INFO x\x1b_bk;t=1760594934123\x07 y": "INFO x y",
		"\x1b]8;;https://docs.vllm.ai\x1b\\docs\x1b]8;;\x1b\\ INFO":      "docs INFO",
		"INFO \x1b_bk;t=17605949":                                        "INFO ",
	} {
		if got := string(StripANSI(nil, []byte(in))); got != want {
			t.Errorf("StripANSI(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPreamble takes lines apart: what is left for the engine's header,
// the process names, the wrappers, and whether offsets still give columns.
func TestPreamble(t *testing.T) {
	for _, tc := range []struct {
		line, rest, procs, wrappers string
		cols                        bool
	}{
		{"INFO 05-19 14:03:12 [x.py:1] m", "INFO 05-19 14:03:12 [x.py:1] m", "[]", "", true},
		{"(APIServer pid=1) INFO x", "INFO x", "[APIServer]", "", true},
		{"(Worker pid=312) (Worker_TP0 pid=312)   INFO x", "INFO x", "[Worker Worker_TP0]", "", true},
		{"(SGLangEngine pid=7, ip=10.0.0.1) [2026-07-20 10:15:03] x", "[2026-07-20 10:15:03] x", "[SGLangEngine]", "ray", true},
		{"2026-10-27T12:03:03.001158525Z (EngineCore pid=2) INFO x", "INFO x", "[EngineCore]", "container-rfc3339", true},
		{"\x1b[0;36m(APIServer pid=1)\x1b[0;0m \x1b[32mINFO\x1b[0m x", "INFO x", "[APIServer]", "", false},
		// A parenthesis that is not a process prefix ends the prefixes.
		{"(VllmWorker rank=1) INFO x", "(VllmWorker rank=1) INFO x", "[]", "", true},
		{"(APIServer pid=1) (unclosed INFO x", "(unclosed INFO x", "[APIServer]", "", true},
		{"", "", "[]", "", true},
		// Trailing blanks, tabs and carriage returns are not the line's.
		{"INFO x: 1%   \t\r", "INFO x: 1%", "[]", "", true},
		// Colour codes whose ESC byte was lost, in every spelling seen.
		{"[1;36m(EngineCore_0 pid=260) [0;0m INFO 09-01 x", "INFO 09-01 x", "[EngineCore_0]", "", false},
		{"#033[1;36m(APIServer pid=1)#033[0;0m INFO x", "INFO x", "[APIServer]", "", false},
		{"ESC[0;36m(APIServer pid=1)ESC[0;0m INFO x", "INFO x", "[APIServer]", "", false},
		{"^[[1;36m(ApiServer_0 pid=1)^[[0;0m INFO x", "INFO x", "[ApiServer_0]", "", false},
		{"[32mINFO[0m [90m10-27 12:01:23[0m [90m[model.py:12][0m m", "INFO 10-27 12:01:23 [model.py:12] m", "[]", "", false},
		{"36m(APIServer pid=1)[0;0m INFO x", "INFO x", "[APIServer]", "", false},
		// Wrappers, alone and together.
		{"vllm-1  | (APIServer pid=1) INFO x", "INFO x", "[APIServer]", "docker-compose", true},
		{"bzhou_ubuntu  | INFO 03-26 x", "INFO 03-26 x", "[]", "docker-compose", true},
		{"Apr 05 18:07:38 gpu4090d bash[59857]: (APIServer pid=59857) INFO x", "INFO x", "[APIServer]", "journald", true},
		{"Aug  8 22:22:14 sys0 vllm[188957]: [102B blob data]", "[102B blob data]", "[]", "journald", true},
		{"2026-08-18T22:21:59+0200 sys0 vllm[188300]: INFO x", "INFO x", "[]", "journald", true},
		// journalctl writes the month in its locale (strftime's %b), and
		// leaves the host out with --no-hostname.
		{"авг 18 14:15:02 llm python3[28059]: (EngineCore pid=28059) INFO x", "INFO x", "[EngineCore]", "journald", true},
		{"Okt 05 09:00:01 gpu vllm[7]: INFO x", "INFO x", "[]", "journald", true},
		{"janv. 05 09:00:01 gpu vllm[7]: INFO x", "INFO x", "[]", "journald", true},
		{"8月 05 09:00:01 gpu vllm[7]: INFO x", "INFO x", "[]", "journald", true},
		{" 8月 18 14:15:02 gpu vllm[7]: INFO x", "INFO x", "[]", "journald", true},                    // ja_JP: glibc pads the month
		{" 8월 18 14:15:02 gpu vllm[7]: INFO x", "INFO x", "[]", "journald", true},                    // ko_KR
		{" 8 18 14:15:02 gpu vllm[7]: INFO x", " 8 18 14:15:02 gpu vllm[7]: INFO x", "[]", "", true}, // no month name
		{"Aug 18 14:15:04.123456 python3[27876]: INFO x", "INFO x", "[]", "journald", true},
		// journalctl -o short-full (and with-unit), -o short-unix.
		{"Tue 2026-08-18 14:15:02 MSK llm python3[27876]: (APIServer pid=27876) INFO x", "INFO x", "[APIServer]", "journald", true},
		{"Tue 2026-08-18 11:15:02 UTC llm vllm.service[27876]: INFO x", "INFO x", "[]", "journald", true},
		{"Tue 2026-08-18 14:15:02 llm python3[27876]: INFO x", "INFO x", "[]", "journald", true},
		{"1787051702.123456 llm python3[27876]: INFO x", "INFO x", "[]", "journald", true},
		{"Tue 2026-08-18 14:15:02 INFO x", "Tue 2026-08-18 14:15:02 INFO x", "[]", "", true},
		{"INFO 08-18 14:15:04 [x.py:1] m", "INFO 08-18 14:15:04 [x.py:1] m", "[]", "", true},
		{"Note 18 14:15:04 host x[1] m", "Note 18 14:15:04 host x[1] m", "[]", "", true},
		{"Aug1 18 14:15:04 host x[1]: m", "Aug1 18 14:15:04 host x[1]: m", "[]", "", true},
		{"[2024-07-08 15:17:34] INFO 07-08 07:17:34 metrics.py:334] m", "INFO 07-08 07:17:34 metrics.py:334] m", "[]", "launcher", true},
		{"[2025-09-02 13:08:10] INFO (APIServer pid=158) INFO x", "INFO x", "[APIServer]", "launcher", true},
		{"[2025-09-02 13:08:10,123] [2025-09-02 13:08:10 TP0] Decode", "[2025-09-02 13:08:10 TP0] Decode", "[]", "launcher", true},
		{"2025-05-30 09:55:29.284 | INFO 05-30 07:55:29 x", "INFO 05-30 07:55:29 x", "[]", "timestamp-pipe", true},
		// The Buildkite agent's line stamp (--timestamp-lines), in front of
		// either engine's line.
		{"[2025-10-16T06:08:44Z] (EngineCore_DP0 pid=23579) INFO 10-15 23:08:44 x", "INFO 10-15 23:08:44 x", "[EngineCore_DP0]", "launcher", true},
		{"[2025-10-16T06:08:44Z] [2025-10-16 06:08:44 TP0] Decode", "[2025-10-16 06:08:44 TP0] Decode", "[]", "launcher", true},
		{"[2025-10-16T06:08:44Z]x INFO", "[2025-10-16T06:08:44Z]x INFO", "[]", "", true},
		// The same stamp as the agent writes it in a job's raw log.
		{"\x1b_bk;t=1760594924123\x07(EngineCore_DP0 pid=23579) INFO x", "INFO x", "[EngineCore_DP0]", "launcher", true},
		{"\x1b_bk;t=1760594924123\x07[2025-10-16 06:08:44 TP0] Decode", "[2025-10-16 06:08:44 TP0] Decode", "[]", "launcher", true},
		{"\x1b_bk;t=1760594924123\x07\x1b[32mINFO\x1b[0m x", "INFO x", "[]", "launcher", false},
		{"0: INFO 05-03 00:53:42 x", "INFO 05-03 00:53:42 x", "[]", "slurm-label", true},
		{" 12: INFO 05-03 00:53:42 x", "INFO 05-03 00:53:42 x", "[]", "slurm-label", true},
		{"2026-06-24T17:38:02.45453416+02:00 stderr F [2026-06-24 15:38:02 PP2] D", "[2026-06-24 15:38:02 PP2] D", "[]", "cri", true},
		{"1779264164496\t2026-05-20T08:02:44.496Z\t[2026-05-20 08:02:44] x", "[2026-05-20 08:02:44] x", "[]", "logexport-tsv", true},
		{"2025-09-02T13:08:10.448213904Z [1;36m(APIServer pid=158)[0;0m INFO x", "INFO x", "[APIServer]", "container-rfc3339", false},
		{"sglang-1  | 2025-09-03T18:33:19Z 0: (SGLangEngine pid=4) [2025-09-03 18:33:19] D", "[2025-09-03 18:33:19] D", "[SGLangEngine]", "container-rfc3339+docker-compose+slurm-label+ray", true},
		{"(MapWorker(MapBatches(vLLMEngineStageUDF)) pid=9, ip=10.0.0.2) (EngineCore_DP0 pid=12) INFO x", "INFO x", "[MapWorker(MapBatches(vLLMEngineStageUDF)) EngineCore_DP0]", "ray", true},
		{"[pod/vllm-7d9f8-x2k4p/vllm] (APIServer pid=1) INFO x", "INFO x", "[APIServer]", "kubectl-prefix", true},
		{"[deployment/sglang/sglang] 2025-09-03T18:33:19Z [2025-09-03 18:33:19] D", "[2025-09-03 18:33:19] D", "[]", "container-rfc3339+kubectl-prefix", true},
		{"(_AsyncLLMEngine pid=1974) INFO 01-25 x", "INFO 01-25 x", "[_AsyncLLMEngine]", "ray", true},
		// The engines' own lines, and other text, are not wrappers.
		{"[2025-11-11 04:28:01] Prefill batch, #new-seq: 1", "[2025-11-11 04:28:01] Prefill batch, #new-seq: 1", "[]", "", true},
		{"[2025-09-03 18:33:31] INFO:     192.168.30.81:35262 - x", "[2025-09-03 18:33:31] INFO:     192.168.30.81:35262 - x", "[]", "", true},
		{"[2026-07-20 10:15:03.250 DP3 TP3] Decode batch", "[2026-07-20 10:15:03.250 DP3 TP3] Decode batch", "[]", "", true},
		{"#running-req: 5, #token: 1938", "#running-req: 5, #token: 1938", "[]", "", true},
		{"new fill batch. #seq: 1. #cached_token: 330.", "new fill batch. #seq: 1. #cached_token: 330.", "[]", "", true},
		{"2025-10-20 03:02:22 INFO 31223 [DP3 TP3 EP3 s.py:222] D", "2025-10-20 03:02:22 INFO 31223 [DP3 TP3 EP3 s.py:222] D", "[]", "", true},
		{"  2% 1/64 [00:04<04:51,  4.62s/it][2026-04-05 20:02:49] P", "  2% 1/64 [00:04<04:51,  4.62s/it][2026-04-05 20:02:49] P", "[]", "", true},
		{"(WorkerDict pid=4) INFO x", "INFO x", "[WorkerDict]", "ray", true},
		// Ray's prefix for a task or a worker that is no actor: "pid=" and
		// no name (print_worker_logs in python/ray/_private/worker.py).
		{"(pid=1234, ip=10.0.0.2) (APIServer pid=1) INFO x", "INFO x", "[ APIServer]", "ray", true},
		{"(pid=1234) INFO x", "INFO x", "[]", "ray", true},
		{"(Worker_TP0 pid=1234, ip=10.0.0.2) INFO x", "INFO x", "[Worker_TP0]", "ray", true}, // named like vLLM's, forwarded by Ray from another node
		{"(raylet, ip=10.0.0.2) INFO x", "(raylet, ip=10.0.0.2) INFO x", "[]", "", true},
		// Python's logging-cookbook header of an application that logs the
		// engine's output as its own records; with a vLLM logger's name
		// and the engine's plain message after it, it is vLLM's own header
		// in that format (vllmlog), not a wrapper.
		{"2025-09-02 13:08:10,000 - root - INFO - (APIServer pid=1) INFO x", "INFO x", "[APIServer]", "pylogging", true},
		{"2025-09-02 13:08:10 - supervisor.vllm - WARNING - [2025-09-02 13:08:10 TP0] D", "[2025-09-02 13:08:10 TP0] D", "[]", "pylogging", true},
		{"2025-09-02 13:08:10.123 - __main__ - DEBUG - INFO 09-02 13:08:10 [x.py:1] m", "INFO 09-02 13:08:10 [x.py:1] m", "[]", "pylogging", true},
		{"2025-09-02 13:08:10,000 - vllm - INFO - INFO 09-02 13:08:10 [x.py:1] m", "INFO 09-02 13:08:10 [x.py:1] m", "[]", "pylogging", true},
		{"2025-09-02 13:08:10,000 - vllm.v1.metrics.loggers - INFO - Engine 000: m", "2025-09-02 13:08:10,000 - vllm.v1.metrics.loggers - INFO - Engine 000: m", "[]", "", true},
		{"2025-07-08 17:23:59 - vllm.engine.async_llm_engine - INFO - Added request 4.", "2025-07-08 17:23:59 - vllm.engine.async_llm_engine - INFO - Added request 4.", "[]", "", true},
		{"2025-09-02 13:08:10,000 - root - NOTICE - INFO x", "2025-09-02 13:08:10,000 - root - NOTICE - INFO x", "[]", "", true},
	} {
		var p Preamble
		l := p.Read([]byte(tc.line))
		var names [][]byte
		for i := range l.Procs() {
			names = append(names, l.Proc(i))
		}
		procs := fmt.Sprintf("%s", names)
		if string(l.Text[l.Start:]) != tc.rest || procs != tc.procs || l.Wrappers().String() != tc.wrappers || (l.Col(0) != 0) != tc.cols {
			t.Errorf("%q: rest %q, procs %s, wrappers %q, column of offset 0 %d; want %q, %s, %q, columns %v",
				tc.line, l.Text[l.Start:], procs, l.Wrappers(), l.Col(0), tc.rest, tc.procs, tc.wrappers, tc.cols)
		}
	}
}

// TestWrapperClock reads the stamps wrappers carry: as written, and as an
// instant only when the stamp carries its zone.
func TestWrapperClock(t *testing.T) {
	for _, tc := range []struct {
		line, stamp, instant string // instant "" when the stamp has no zone
	}{
		{"2025-10-15T00:00:48.753199366Z (APIServer pid=1) INFO x", "2025-10-15T00:00:48.753199366Z", "2025-10-15T00:00:48.753199366Z"},
		{"2026-06-24T17:38:02.45453416+02:00 stderr F [x", "2026-06-24T17:38:02.45453416+02:00", "2026-06-24T15:38:02.45453416Z"},
		{"1779264164496\t2026-05-20T08:02:44.496Z\t[x", "2026-05-20T08:02:44.496Z", "2026-05-20T08:02:44.496Z"},
		{"2026-08-18T22:21:59+0200 sys0 vllm[188300]: INFO x", "2026-08-18T22:21:59+0200", "2026-08-18T20:21:59Z"},
		{"Aug 18 22:22:14 sys0 vllm[188957]: [102B blob data]", "Aug 18 22:22:14", ""},
		{"Tue 2026-08-18 11:15:02 UTC llm vllm.service[27876]: INFO x", "Tue 2026-08-18 11:15:02 UTC", "2026-08-18T11:15:02Z"},
		{"Tue 2026-08-18 14:15:02 MSK llm python3[27876]: INFO x", "Tue 2026-08-18 14:15:02 MSK", ""},
		{"1787051702.123456 llm python3[27876]: INFO x", "1787051702.123456", "2026-08-18T11:15:02.123456Z"},
		{"2025-05-30 09:55:29.284 | INFO x", "2025-05-30 09:55:29.284", ""},
		{"[2024-07-08 15:17:34] INFO 07-08 07:17:34 m.py:1] x", "2024-07-08 15:17:34", ""},
		{"[2025-10-16T06:08:44Z] (EngineCore_DP0 pid=23579) INFO x", "2025-10-16T06:08:44Z", "2025-10-16T06:08:44Z"},
		{"\x1b_bk;t=1760594924123\x07(EngineCore_DP0 pid=23579) INFO x", "1760594924123", "2025-10-16T06:08:44.123Z"},
		{"2026-10-27T12:00:05 INFO x", "2026-10-27T12:00:05", ""},
		{"2025-09-02 13:08:10,123 - root - INFO - INFO x", "2025-09-02 13:08:10,123", ""},
		{"vllm-1  | INFO x", "", ""},
		{"INFO x", "", ""},
	} {
		l := ReadLine([]byte(tc.line))
		instant := ""
		if at, ok := l.WrapperTime(); ok {
			instant = at.UTC().Format(time.RFC3339Nano)
		}
		if string(l.WrapperStamp()) != tc.stamp || instant != tc.instant {
			t.Errorf("%q: stamp %q at %q, want %q at %q", tc.line, l.WrapperStamp(), instant, tc.stamp, tc.instant)
		}
	}
}

// TestLineErrors places errors: at a column of the raw line, or without one
// when colour codes were stripped or the place is unknown.
func TestLineErrors(t *testing.T) {
	pos := textpos.Pos{File: "engine.log", Line: 7}
	for _, tc := range []struct {
		raw  string
		off  int
		want string
	}{
		{"INFO x: 1y", 8, "engine.log:7:9: bad"},
		{"INFO x: 1y", -1, "engine.log:7: bad"},
		{"\x1b[32mINFO\x1b[0m x: 1y", 8, "engine.log:7: bad"},
		{"[32mINFO[0m x: 1y", 8, "engine.log:7: bad"},
		{"vllm-1  | INFO x: 1y  \r", 18, "engine.log:7:19: bad"},
	} {
		l := ReadLine([]byte(tc.raw))
		l.Pos = pos
		if got := l.Errorf(tc.off, "bad").Error(); got != tc.want {
			t.Errorf("%q at %d: %s, want %s", tc.raw, tc.off, got, tc.want)
		}
	}
	l := ReadLine([]byte("INFO Running: 1, Waiting: x"))
	l.Pos = pos
	fe := &textpos.Reason{Off: 7, Msg: "Waiting: malformed"}
	if got := l.FieldsErr(5, fe, "stats line").Error(); got != "engine.log:7:13: stats line: Waiting: malformed" {
		t.Errorf("FieldsErr = %s", got)
	}
	if got := l.FieldsErr(5, fmt.Errorf("odd"), "stats line").Error(); got != "engine.log:7: stats line: odd" {
		t.Errorf("FieldsErr without a field = %s", got)
	}
}

// TestWrappersOfALog names the wrappers in front of most timed lines.
func TestWrappersOfALog(t *testing.T) {
	var ls Lines
	ls.Info.FirstS, ls.Info.LastS = 0, 0
	for _, line := range []string{"vllm-1  | 2026-01-01T00:00:00Z INFO x", "vllm-1  | INFO x", "vllm-1  | INFO x", "INFO x"} {
		l := ReadLine([]byte(line))
		ls.Stamp(l, time.Time{})
	}
	if got := ls.Summary().Wrappers; got != "docker-compose" {
		t.Errorf("wrappers %q, want docker-compose (on 3 of 4 lines; the container stamp on 1)", got)
	}
}

func TestOwnProcess(t *testing.T) {
	for name, want := range map[string]bool{
		"APIServer": true, "ApiServer_0": true, "EngineCore": true, "EngineCore_DP3": true, "EngineCore_0": true,
		"Worker": true, "Worker_TP0_EP0": true, "VllmWorker rank=1": true, "VllmWorkerProcess": true, "DPCoordinator": true,
		"WorkerDict": false, "SGLangEngine": false, "_AsyncLLMEngine": false, "RayWorkerWrapper": false, "": false,
	} {
		if got := OwnProcess([]byte(name)); got != want {
			t.Errorf("OwnProcess(%q) = %v, want %v", name, got, want)
		}
	}
}
