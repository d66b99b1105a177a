package guidellm

import (
	"github.com/outlast-dev/outlast/ingest/internal/jsondoc"
	"github.com/outlast-dev/outlast/schema"
)

// counts reads a request's prompt and output token counts into row: the
// counts GuideLLM wrote, else the sums of their modality counts, and, for
// a request that did not complete (failed), what it produced.
func (q *request) counts(row *schema.Turn, b *Benchmark, failed bool) *jsondoc.Err {
	var err *jsondoc.Err
	for i, k := range []string{"prompt_tokens", "output_tokens"} {
		m, ok := q.top.Get(k)
		if !ok {
			return jsondoc.Errf(-1, "missing required field %s", k)
		}
		var n int64
		null := jsondoc.IsNull(m.Val)
		if !null {
			if n, err = m.Count(k); err != nil {
				return err
			}
		} else if n, null, err = q.modalitySum(i); err != nil {
			return err
		}
		if i == 1 && b.Embeddings() {
			// The embeddings endpoint generates no tokens: 0 is the count,
			// whatever GuideLLM wrote (null, or the dataset's requested
			// count; see Benchmark.Embeddings).
			q.embeddingsOutput = n > 0
			n, null = 0, false
		}
		if i == 1 && failed && n > 0 && q.outputEmpty() {
			// A request that failed with nothing received produced no
			// token: GuideLLM v0.3 writes the request's requested count
			// when the server sent no usage (benchmark/aggregator.py,
			// _compile_tokens_count: response_tokens or requests_tokens),
			// as later versions merge the dataset's requested count
			// (schemas/response.py compile_stats).
			q.emptyOutput = true
			n = 0
		}
		if i == 1 && failed && null && !q.outputEmpty() && q.isV04 {
			// Cut off while streaming (cancelled at the benchmark's end,
			// a timeout), so no usage came and the count is null; but the
			// request produced what it streamed: v0.4+ counts the chunks
			// that carried text (info.timings.token_iterations), a token
			// each, or more where one chunk carries several.
			if it, ok := q.timings.Get("token_iterations"); ok && !jsondoc.IsNull(it.Val) {
				c, err := it.Count("info.timings.token_iterations")
				if err != nil {
					return err
				}
				if c > 0 {
					n, null, q.streamedOutput = c, false, true
				}
			}
		}
		if null {
			q.nullTokens = k
		}
		if i == 0 {
			row.PromptTokens = n
		} else {
			row.OutputTokens = n
		}
	}
	return nil
}

// outputEmpty reports whether the request's output text is empty or
// null (a request without the member is taken as not empty: nothing says
// what it produced).
func (q *request) outputEmpty() bool {
	o, ok := q.top.Get("output")
	return ok && (jsondoc.IsNull(o.Val) || string(o.Val) == `""`)
}

// modalityKeys are the token counts UsageMetrics.total_tokens sums
// (schemas/request.py).
var modalityKeys = [...]string{"text_tokens", "image_tokens", "video_tokens", "audio_tokens"}

// modalitySum returns the prompt's (i 0) or the output's (i 1) token count
// from input_metrics or output_metrics, for a request whose prompt_tokens
// or output_tokens is null; null is true when they give none either.
// GuideLLM v0.4.0 and v0.5.0 summed the counts with `or None`
// (UsageMetrics.total_tokens), so a count of 0 was written null beside its
// text_tokens 0; from v0.5.1 (vllm-project/guidellm@512e0833) null means
// that no count was taken, and every modality count is null then too.
func (q *request) modalitySum(i int) (n int64, null bool, err *jsondoc.Err) {
	name := [2]string{"input_metrics", "output_metrics"}[i]
	m, ok := q.top.Get(name)
	if !ok || jsondoc.IsNull(m.Val) {
		return 0, true, nil
	}
	if q.usage, err = m.Object(name, q.usage); err != nil {
		return 0, true, err
	}
	null = true
	for _, k := range modalityKeys {
		v, ok := q.usage.Get(k)
		if !ok || jsondoc.IsNull(v.Val) {
			continue
		}
		c, err := v.Count(name + "." + k)
		if err != nil {
			return 0, true, err
		}
		n, null = n+c, false
	}
	return n, null, nil
}
