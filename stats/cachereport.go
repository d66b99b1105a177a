package stats

import "math"

// VerdictUnreported is the verdict of a run whose gateway never saw a
// cached-token count: its hit ratio says nothing about the cache (a
// ratio of 0 would read as a collapse from the first minute), so it gets no
// hit-ratio verdict. Engines report cached tokens only when asked to (vLLM
// --enable-prompt-tokens-details, SGLang --enable-cache-report).
const VerdictUnreported Verdict = "unreported"

// CacheReported tells from the turns whether the gateway saw cached-token
// counts: reported is true when some ok turn carried cached tokens; known
// is false when the run has no ok turn with prompt tokens to tell from. A
// run with prefix caching on in which not one turn had a cached token did
// not receive the counts, since the shared system prompt alone gives hits.
// The runs table's own record of whether the gateway format carries cached
// tokens, where ingest writes one, is the better authority; this inference
// stands in for datasets without it.
func (x *RunIndex) CacheReported() (reported, known bool) {
	s := x.Turns
	n := len(s.done)
	if n == 0 || s.cumPrompt[n] == 0 {
		return false, false
	}
	return s.cumCached[n] > 0, true
}

// WithoutHitVerdict returns s with no hit-ratio verdict: VerdictUnreported,
// and the end hit ratio, the degradation and the recovery it was read from
// cleared, so that tables built from summaries (Table 2, Table 3) do not
// count the run as degraded; why is added to its warnings.
func WithoutHitVerdict(s RunSummary, why string) RunSummary {
	s.Verdict = VerdictUnreported
	s.EndHit, s.FirstDegradedS, s.RecoveryMin = math.NaN(), math.NaN(), math.NaN()
	s.Persistent, s.Partial, s.CollapsedAtControl, s.Recovery = false, false, false, nil
	s.Warnings = append(append([]string(nil), s.Warnings...), why)
	return s
}
