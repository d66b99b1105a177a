package stats

// CacheReported says whether the gateway saw the engine's cached-token
// counts: runs.cache_reported where ingest recorded it. In a dataset
// written before that column it is inferred from the turns: reported when
// some ok turn carried cached tokens; known is false when the run has no
// ok turn with prompt tokens to tell from. A run with prefix caching on in
// which not one turn had a cached token did not receive the counts, since
// the shared system prompt alone gives hits.
func (x *RunIndex) CacheReported() (reported, known bool) {
	if c := x.Data.Run.CacheReported; c != nil {
		return *c, true
	}
	s := x.Turns
	n := len(s.done)
	if n == 0 || s.cumPrompt[n] == 0 {
		return false, false
	}
	return s.cumCached[n] > 0, true
}
