package replay

import (
	"fmt"
	"math"
	"strings"

	"github.com/outlast-dev/outlast/stats"
)

// The as-is gate: before any variant is believed, the run replayed as it
// was must end as the run did. A variant's outcome is the simulator's
// answer for an engine fitted to the run; if the as-is replay does not
// reproduce the run, the run's collapse (or health) is not the mechanism
// the model knows, or the model is miscalibrated for it, and no variant
// says anything about the run.

// The reproduction criterion. A seed of the as-is replay reproduces the
// observed run when it ends with the run's verdict, an end hit ratio (last
// 10 minutes) within ReproduceHit of the run's (not compared when the run
// has none), and end sessions (mean over the last 5 minutes) within
// ReproduceSessions times the run's, either way, or within
// ReproduceSessionsAbs sessions of it. The run is not reproduced when,
// with 95% confidence, fewer than ReproduceShare of the model's seeds
// would reproduce it: when the one-sided 95% upper bound (Clopper–Pearson)
// of the share of seeds that reproduce it is below ReproduceShare. The
// gate replays at least GateSeeds seeds, the fewest with which no seed
// reproducing the run shows that.
//
// Each seed is judged whole, and the share asked for is low, because the
// regimes are metastable: a run that escaped its burst, or a twin that
// collapsed on its own, is the minority outcome of its own workload, and
// the simulator's own runs of the paired design are reproduced by 1 to 5
// of 16 seeds when they are (see replay's package doc); a median over
// seeds that split between two regimes would be neither. A collapsed
// run's seeds end at a 0.10–0.13 hit ratio and a healthy one's at
// 0.93–0.95, so 0.15 tells the regimes apart with room for the seeds'
// spread; a collapsed run's backlog grows with every minute, and its
// seeds' end sessions spread by about a quarter either way.
const (
	ReproduceShare       = 0.25
	ReproduceHit         = 0.15
	ReproduceSessions    = 1.5
	ReproduceSessionsAbs = 5.0
)

// GateSeeds is the least number of as-is seeds the gate replays: the
// fewest n for which 0 of n reproducing the run puts the upper bound
// below ReproduceShare (0.75^11 < 0.05).
var GateSeeds = func() int {
	n := 1
	for (stats.BinomialCI{N: n, Level: Confidence}).Upper() >= ReproduceShare {
		n++
	}
	return n
}()

// Grounding is the as-is gate's result.
type Grounding struct {
	// Grounded: the run was not refused and its as-is replay reproduced it.
	Grounded bool
	// Refused says why the run cannot be replayed with any confidence,
	// before any simulation ("" when it can): Fitted.Refusal.
	Refused  string
	Observed stats.RunSummary
	// Trace is the exact seed's replay of the observed sessions.
	Trace stats.RunSummary
	// Reproduced is how many as-is seeds reproduce the run, with its exact
	// interval. Same, HitClose and SessionsClose count the seeds that meet
	// each part (HitClose is -1 when the run has no end hit ratio);
	// EndHit and EndSessions are the seeds' medians.
	Reproduced                    stats.BinomialCI
	Same, HitClose, SessionsClose int
	EndHit, EndSessions           float64
	Outcome                       Outcome
}

// Refusal says why the run cannot ground a replay, "" when it can: an
// engine not fitted to the run (no turn timings), a KV pool the run does
// not give, or cached tokens it does not report (its hit ratio and
// verdict, which the as-is replay must reproduce, are unknown).
func (m *Fitted) Refusal() string {
	var why []string
	if !m.Engine.Fitted() {
		why = append(why, "its turns have no timings (first_token_s) to fit the engine's speed on")
	}
	if m.Engine.PoolFrom == "default" {
		why = append(why, "it gives no KV pool size")
	}
	if !stats.CacheKnown(&m.observedRun) && m.observedRun.PrefixCaching {
		why = append(why, "it reports no cached tokens, so its hit ratio and verdict, which the as-is replay must reproduce, are unknown")
	}
	if len(why) == 0 {
		return ""
	}
	return "too little to ground a replay in: " + strings.Join(why, "; ")
}

// Ground checks the as-is replays against the observed run by the
// reproduction criterion.
func (m *Fitted) Ground(asIs *VariantResult) Grounding {
	g := Grounding{Refused: m.Refusal(), Observed: m.Observed, Outcome: asIs.Outcome(), HitClose: -1}
	o := &g.Observed
	hitKnown := !math.IsNaN(o.EndHit)
	if hitKnown {
		g.HitClose = 0
	}
	reproduced := 0
	var hit, sess []float64
	for _, r := range asIs.Runs {
		s := &r.Summary
		if r.Seed == ExactSeed {
			g.Trace = *s
		}
		same := s.Verdict == o.Verdict
		hitOK := !hitKnown || math.Abs(s.EndHit-o.EndHit) <= ReproduceHit
		sessOK := math.IsNaN(o.EndSessions) || sessionsClose(s.EndSessions, o.EndSessions)
		if same {
			g.Same++
		}
		if hitKnown && hitOK {
			g.HitClose++
		}
		if sessOK {
			g.SessionsClose++
		}
		if same && hitOK && sessOK {
			reproduced++
		}
		hit, sess = append(hit, s.EndHit), append(sess, s.EndSessions)
	}
	g.Reproduced = stats.ClopperPearson(reproduced, len(asIs.Runs), Confidence)
	g.EndHit, g.EndSessions = NewSpread(hit).Median, NewSpread(sess).Median
	g.Grounded = g.Refused == "" && !g.TooFew() && g.Reproduced.Upper() >= ReproduceShare
	return g
}

// TooFew says the gate had fewer than GateSeeds seeds: too few to show
// that the run is not reproduced, so too few to ground it.
func (g *Grounding) TooFew() bool { return g.Reproduced.N < GateSeeds }

// sessionsClose is the criterion's end-sessions test.
func sessionsClose(got, want float64) bool {
	if math.Abs(got-want) <= ReproduceSessionsAbs {
		return true
	}
	return got > 0 && want > 0 && got/want <= ReproduceSessions && want/got <= ReproduceSessions
}

// Parts says how many seeds met each part of the criterion.
func (g *Grounding) Parts() []string {
	o := &g.Observed
	parts := []string{fmt.Sprintf("%d end %s like it", g.Same, o.Verdict)}
	if g.HitClose >= 0 {
		parts = append(parts, fmt.Sprintf("%d with an end hit ratio within %s of its %s (median %s)", g.HitClose, num(ReproduceHit, 2), num(o.EndHit, 2), num(g.EndHit, 2)))
	}
	if !math.IsNaN(o.EndSessions) {
		parts = append(parts, fmt.Sprintf("%d with end sessions within ×%s or %s of its %s (median %s)", g.SessionsClose, num(ReproduceSessions, -1),
			num(ReproduceSessionsAbs, -1), num(o.EndSessions, 1), num(g.EndSessions, 1)))
	}
	return parts
}

// Reason says in one sentence why the replay is grounded or not.
func (g *Grounding) Reason() string {
	switch {
	case g.Refused != "":
		return "refused: " + g.Refused
	case g.TooFew():
		return fmt.Sprintf("undecided: %d as-is seeds are too few to show the run is not reproduced (the gate needs %d)", g.Reproduced.N, GateSeeds)
	}
	s := "reproduced"
	if !g.Grounded {
		s = "not reproduced"
	}
	return fmt.Sprintf("%s: %d of %d as-is seeds reproduce the run (95%% upper bound %s of the share, %s wanted): %s", s, g.Reproduced.K, g.Reproduced.N,
		num(g.Reproduced.Upper(), 2), num(ReproduceShare, 2), strings.Join(g.Parts(), ", "))
}

// Labels are the manifest labels that carry the gate's result into every
// replayed run, where outlast report reads it.
func (g *Grounding) Labels() []string {
	return []string{"grounded: " + fmt.Sprint(g.Grounded), "grounding: " + yamlQuote(g.Reason())}
}

// yamlQuote renders s as a YAML double-quoted scalar.
func yamlQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
