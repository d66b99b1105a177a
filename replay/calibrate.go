package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/outlast-dev/outlast/sim"
	"github.com/outlast-dev/outlast/stats"
)

// Correct removes the engine fit's own bias, measured by simulation: it
// replays the run's exact trace with the fitted factors, fits that replay
// as it fitted the run, and divides each factor by the ratio of the
// refitted factor to the one simulated (indirect inference, one step).
// The regression is only an approximation of the simulator's step times
// (it counts decode steps from the turns' mean token rates, and misses the
// fixed cost of steps without a decode), and its bias on a given workload
// is nearly the same at nearby factors, so the replay measures it. The
// standard errors combine the run's and the replay's (the corrected
// factor's relative error is the difference of two fits' relative errors).
// A run whose engine was not fitted is left as it is; a replay that cannot
// be refitted leaves the factors uncorrected, with a warning. The replay
// is written to a temporary directory under opt.Out and removed.
func (m *Fitted) Correct(opt Options) error {
	e := m.Engine
	if !e.Fitted() || e.Corrected {
		return nil
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(opt.Out, ".correct-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	o := opt
	o.Out, o.Seeds, o.FirstSeed, o.point, o.Labels = tmp, 1, ExactSeed, true, nil
	res, err := Replay(m, []Variant{{Name: AsIs}}, o)
	if err != nil {
		return err
	}
	rd, _, err := opt.Read(res[0].Runs[0].Dir)
	if err != nil {
		return err
	}
	if !stats.CacheKnown(&m.observedRun) {
		// Fit the replay as the run was fitted: without its cached tokens.
		no := false
		rd.Run.CacheReported = &no
		for i := range rd.Turns {
			rd.Turns[i].CachedTokens = 0
		}
	}
	est, ok := e.refit(stats.NewRunIndex(rd))
	if !ok {
		m.warn("the fit could not be checked on a replay of the run's own sessions: its factors are the regression's, uncorrected")
		return nil
	}
	own := [2]Factor{e.Prefill, e.Decode}
	refit := [2]Factor{est.p, est.d}
	var out [2]Factor
	var rel [2][2]float64 // relative errors: [factor]{run's, replay's}
	for i := range own {
		out[i] = own[i]
		if math.IsNaN(own[i].SE) {
			continue // held at its default
		}
		b := refit[i].Value / own[i].Value
		if !(b > 0) || math.IsInf(b, 0) || math.IsNaN(refit[i].SE) {
			m.warn("the fit could not be checked on a replay of the run's own sessions: its factors are the regression's, uncorrected")
			return nil
		}
		e.Bias[i] = b
		v := own[i].Value / b
		rel[i] = [2]float64{own[i].SE / own[i].Value, refit[i].SE / refit[i].Value}
		out[i] = Factor{v, v * math.Hypot(rel[i][0], rel[i][1])}
	}
	if e.kind == fitBoth {
		cov := e.Corr*rel[0][0]*rel[1][0] + est.corr*rel[0][1]*rel[1][1]
		e.Corr = cov / (out[0].SE / out[0].Value) / (out[1].SE / out[1].Value)
	}
	e.Prefill, e.Decode, e.Corrected, e.CorrectRun = out[0], out[1], true, res[0].Runs[0].Name
	e.Cost = sim.DefaultCost.Scaled(e.Prefill.Value, e.Decode.Value)
	return nil
}

// warn adds a warning to the model's.
func (m *Fitted) warn(s string) {
	m.Engine.Warnings = append(m.Engine.Warnings, s)
	m.Warnings = append(m.Warnings, s)
}

// streamEngine is the stream of a seed's engine draw.
const streamEngine = 0x656e67696e65

// Draw returns the engine factors seed replays with: the fitted ones for
// the exact seed, which replays the run as it was, and for every other
// seed a draw from the fit's uncertainty, so that the spread over seeds
// includes the engine's calibration error. (log prefill, log decode) is
// normal about the logs of the factors, with their relative standard
// errors and correlation; a factor held at its default is not drawn. The
// draw depends on the seed alone, so seed s of every variant runs the
// same engine and variants differ only in what they change.
func (e *Engine) Draw(seed uint64) (prefill, decode float64) {
	p, d := e.Prefill, e.Decode
	if seed == ExactSeed {
		return p.Value, d.Value
	}
	rng := rand.New(rand.NewPCG(seed, streamEngine))
	z1, z2 := rng.NormFloat64(), rng.NormFloat64()
	sp, sd := relSE(p), relSE(d)
	r := e.Corr
	if !(r >= -1 && r <= 1) {
		r = 0
	}
	prefill = p.Value * math.Exp(sp*z1)
	decode = d.Value * math.Exp(sd*(r*z1+math.Sqrt(1-r*r)*z2))
	return prefill, decode
}

// relSE is a factor's relative standard error, 0 when it has none.
func relSE(f Factor) float64 {
	if math.IsNaN(f.SE) || !(f.Value > 0) {
		return 0
	}
	return f.SE / f.Value
}

// describeCorrection says what Correct did, for the printout.
func (e *Engine) describeCorrection() string {
	if !e.Corrected {
		return ""
	}
	var parts []string
	for i, name := range []string{"prefill", "decode"} {
		if !math.IsNaN(e.Bias[i]) {
			f := [2]Factor{e.Prefill, e.Decode}[i]
			parts = append(parts, fmt.Sprintf("%s ×%s → ×%s", name, num(e.Raw[i].Value, 3), num(f.Value, 3)))
		}
	}
	return "for the regression's own bias, measured on a replay of the run's sessions: " + strings.Join(parts, ", ")
}
