package benchgen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// GuideLLMFile is the name of a generated GuideLLM report.
const GuideLLMFile = "benchmarks.json"

// WriteGuideLLM writes a GuideLLM report (schema version 2, one line, as
// GuideLLM's json.dumps writes it) of one concurrent benchmark of
// multi-turn conversations, with prompt and output texts of realistic
// length, until it has at least opt.Bytes bytes. The report's keys and
// their order are those of vllm-project/guidellm's
// benchmark/schemas/report.py and benchmark.py.
func WriteGuideLLM(w io.Writer, opt Options) (Stats, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countingWriter{w: bw}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15))
	t0 := float64(StartedAt.Unix())
	fmt.Fprintf(cw, `{"metadata": {"version": 2, "guidellm_version": "0.7.4", "python_version": "3.12.11", "platform": "Linux"}, `+
		`"config": {"metadata": {"labels": {}}, "spec": {"backend": {"kind": "openai_http", "target": "http://vllm-0:8000", "model": "Qwen/Qwen3-8B"}, `+
		`"profile": {"kind": "concurrent", "streams": [64]}}, "benchmarks": [null]}, "benchmarks": [{"type_": "generative_benchmark", `+
		`"config": {"id_": "bench", "run_id": "run", "run_index": 0, "strategy": {"type_": "concurrent", "worker_count": 8, "max_concurrency": 64, "streams": 64, "rampup_duration": 0.0}, "sample_size": null}, `+
		`"scheduler_state": {"start_time": %.1f}, "scheduler_metrics": {"start_time": %.1f, "request_start_time": %.1f, "measure_start_time": %.1f, "measure_end_time": 1e10, "request_end_time": 1e10, "end_time": 1e10}, `+
		`"metrics": {"request_totals": null}, "requests": {"successful": [`,
		t0, t0, t0, t0)
	words := strings.Fields(filler)
	text := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	var st Stats
	clock := t0
	for conv := 0; cw.n < opt.Bytes; conv++ {
		turns := 3 + rng.IntN(8)
		prompt := 4096 + rng.IntN(2048)
		st.Sessions++
		for turn := 0; turn < turns && cw.n < opt.Bytes; turn++ {
			if st.Turns > 0 {
				cw.WriteString(", ")
			}
			out := 100 + rng.IntN(400)
			cached := 0
			if turn > 0 {
				cached = prompt / 16 * 15
			}
			ready := clock + 1 + rng.Float64()*10
			sent := ready + 0.001
			first := sent + 0.05 + rng.Float64()*0.5
			end := first + float64(out)*0.02
			clock += 0.05
			fmt.Fprintf(cw, `{"type_": "generative_request_stats", "request_id": "r%d-%d", "response_id": "chatcmpl-%d-%d", `+
				`"request_args": "{\"method\":\"POST\",\"stream\":true,\"body\":{\"model\":\"Qwen/Qwen3-8B\",\"messages\":[{\"role\":\"user\",\"content\":\"%s\"}]}}", `+
				`"output": "%s", "reasoning_output": null, "tool_calls": null, "info": {"request_id": "r%d-%d", "conversation_id": "c%d", "history_len": %d, "turn_index": %d, `+
				`"node_id": "turn_%d", "agent_id": null, "parent_node_ids": [], "status": "completed", "scheduler_node_id": -1, "scheduler_process_id": %d, "scheduler_start_time": %.1f, `+
				`"timings": {"targeted_start": %.7f, "queued": %.7f, "dequeued": %.7f, "scheduled_at": %.7f, "resolve_start": %.7f, "request_start": %.7f, "first_request_iteration": %.7f, `+
				`"first_token_iteration": %.7f, "first_output_token_iteration": %.7f, "last_token_iteration": %.7f, "last_request_iteration": %.7f, "request_iterations": %d, "token_iterations": %d, `+
				`"request_end": %.7f, "resolve_end": %.7f, "finalized": %.7f}, "settings": {"relative_timestamp": null, "requeue_delay": 5.0}, "error": null, "traceback": null, `+
				`"started_at": %.7f, "completed_at": %.7f}, "input_metrics": {"text_tokens": %d, "cached_tokens": %d, "total_tokens": %d}, `+
				`"output_metrics": {"text_tokens": %d, "cached_tokens": null, "total_tokens": %d}, "request_start_time": %.7f, "request_end_time": %.7f, "request_latency": %.7f, `+
				`"prompt_tokens": %d, "cached_tokens": %d, "output_tokens": %d, "total_tokens": %d, "time_to_first_token_ms": %.4f}`,
				conv, turn, conv, turn, text(60+rng.IntN(200)), text(out/2), conv, turn, conv, 2*turn, turn, turn, conv%8, t0,
				ready, ready-0.01, ready-0.005, ready, sent-0.0005, sent, first-0.001, first, first, end-0.01, end-0.005, out+2, out,
				end, end+0.001, end+0.005, sent, end, prompt, cached, prompt, out, out, sent, end, end-sent,
				prompt, cached, out, prompt+out, (first-sent)*1000)
			st.Turns++
			prompt += out + 200
		}
	}
	cw.WriteString(`], "errored": [], "incomplete": [], "total": null}, "start_time": 0, "end_time": 0, "duration": 0, "warmup_duration": 0, "cooldown_duration": 0}]}`)
	if err := bw.Flush(); err != nil {
		return st, err
	}
	st.Bytes, st.Lines = cw.n, 1
	return st, cw.err
}

// WriteGuideLLMRunDir writes dir/run.yaml and dir/benchmarks.json.
func WriteGuideLLMRunDir(dir, run string, opt Options) (Stats, error) {
	return writeRunDir(dir, GuideLLMFile, opt, WriteGuideLLM, func(st Stats) string {
		return Manifest(run, st) + "files:\n  gateway: " + GuideLLMFile + "\n  gateway_format: guidellm\n"
	})
}

// filler is the text prompts and outputs are drawn from.
const filler = `the scheduler admits a session when its context fits in the pool of blocks and evicts the least recently used prefix when it does not so that a burst of new sessions pushes out the warm prefixes of the old ones and every later turn of those sessions pays a full prefill again which keeps the pool full and the hit ratio low long after the burst has ended`
