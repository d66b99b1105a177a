package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
	"github.com/outlast-dev/outlast/stats"
)

// Errors of bad input; the CLI exits with status 2 on them.
var (
	// ErrTooFewTurns: the run has too little to fit (MinTurns, MinSessions).
	ErrTooFewTurns = errors.New("too few turns to fit")
	// ErrVariant: a variant is out of range for the run.
	ErrVariant = errors.New("variant out of range")
)

// ExactSeed is the seed whose runs replay the observed sessions exactly;
// seeds 2, 3, ... resample them.
const ExactSeed = 1

// Fitted is an observed run fitted for replay: its workload, its arrival
// process, its engine and its control.
type Fitted struct {
	// Run is the observed run's name and DurationS its length (stats.RunEnd).
	Run       string
	DurationS float64
	// Observed is the observed run's overview row.
	Observed stats.RunSummary
	Workload *Workload
	Arrivals Arrivals
	Engine   *Engine
	// Arm is the observed run as a simulator arm: its burst, flush, rate
	// change, trigger slot and control; variants change a copy.
	Arm sim.Arm
	// Warnings are the workload's and the engine's, and the model's own.
	Warnings []string

	observedRun schema.Run // the observed run's row
}

// Arrivals is the observed run's arrival process, which resampled seeds
// draw from.
type Arrivals struct {
	// BaseRate is the base sessions' arrival rate and BaseFrom its source:
	// "manifest", "gateway rate event" or "observed" (the sessions of
	// every origin but burst per second before any rate change);
	// BaseObserved is that observed rate.
	BaseRate     float64
	BaseFrom     string
	BaseObserved float64
	RateChange   *sim.RateChange
	// Burst is the trigger's extra arrivals, BurstFrom the source of its
	// rate ("manifest" or "observed") and BurstSessions the burst sessions
	// observed.
	Burst         *sim.Burst
	BurstFrom     string
	BurstSessions int
	// FlushS is a cache flush (< 0: none) and ShiftS a mix shift (< 0:
	// none), from the trigger.
	FlushS, ShiftS float64
	// Check is how well the process read from the manifest (or observed)
	// fits the run's base arrivals; Refit, set when it does not, is the
	// observed process that replaced it (see fitArrivals).
	Check, Refit *ArrivalCheck
}

// Fit fits a replay model to an observed run; calib are calibration runs
// of the same engine and model (prefix caching off), which help fit the
// cold-turn cost.
func Fit(rd *schema.RunData, calib []*schema.RunData) (*Fitted, error) {
	end := stats.RunEnd(rd)
	if !(end > 0) {
		return nil, fmt.Errorf("%w: run %s has no duration", ErrTooFewTurns, rd.Run.Run)
	}
	w, err := extractWorkload(rd, end)
	if err != nil {
		return nil, err
	}
	x := stats.NewRunIndex(rd)
	var cx []*stats.RunIndex
	for _, c := range calib {
		cx = append(cx, stats.NewRunIndex(c))
	}
	m := &Fitted{Run: rd.Run.Run, DurationS: end, Observed: x.Summarize(), Workload: w, Engine: fitEngine(x, cx), observedRun: rd.Run}
	if m.Engine.Pool < w.MaxContext+2*blockTokens {
		return nil, fmt.Errorf("%w: the KV pool of %d tokens (%s) cannot hold the run's largest turn, %d tokens", ErrVariant, m.Engine.Pool, m.Engine.PoolFrom, w.MaxContext)
	}
	m.Arrivals, m.Warnings = arrivalsOf(rd, w, end)
	ctl, err := controlOf(&rd.Run)
	if err != nil {
		return nil, err
	}
	m.Arm = sim.Arm{Name: AsIs, Burst: m.Arrivals.Burst, FlushS: m.Arrivals.FlushS, RateChange: m.Arrivals.RateChange, Control: ctl}
	if r := &rd.Run; r.TriggerStartS != nil && r.TriggerEndS != nil {
		m.Arm.SlotS = [2]float64{*r.TriggerStartS, *r.TriggerEndS}
	}
	m.Warnings = append(append(w.Warnings, m.Engine.Warnings...), m.Warnings...)
	return m, nil
}

// arrivalsOf reads the arrival process from the manifest, the gateway's
// rate events and the sessions themselves.
func arrivalsOf(rd *schema.RunData, w *Workload, end float64) (Arrivals, []string) {
	r := &rd.Run
	a := Arrivals{FlushS: -1, ShiftS: -1}
	var warnings []string
	start := func() float64 { return *r.TriggerStartS }
	switch r.TriggerKind {
	case schema.TriggerRateChange:
		if r.TriggerStartS != nil && start() < end {
			a.RateChange = &sim.RateChange{AtS: start(), After: math.NaN()}
			if r.TriggerRateAfter != nil {
				a.RateChange.After = *r.TriggerRateAfter
			}
		}
	case schema.TriggerFlush:
		if r.TriggerStartS != nil {
			a.FlushS = start()
		}
	case schema.TriggerMixShift:
		if r.TriggerStartS != nil {
			a.ShiftS = start()
		}
	}
	// The base rate: observed before any rate change, and after it.
	change := end
	if a.RateChange != nil {
		change = a.RateChange.AtS
	}
	var before, after, burst int
	first, last := math.Inf(1), math.Inf(-1)
	for _, s := range w.Sessions {
		switch {
		case s.Origin == schema.OriginBurst:
			burst++
			first, last = math.Min(first, s.ArriveS), math.Max(last, s.ArriveS)
		case s.ArriveS < change:
			before++
		default:
			after++
		}
	}
	a.BurstSessions = burst
	if change > 0 {
		a.BaseObserved = float64(before) / change
	}
	a.BaseRate, a.BaseFrom = a.BaseObserved, "observed"
	if r.ArrivalRate != nil {
		a.BaseRate, a.BaseFrom = *r.ArrivalRate, "manifest"
	} else {
		for _, e := range rd.Events {
			if e.Kind == schema.EventRate && e.ArrivalRate != nil && e.TS < change {
				a.BaseRate, a.BaseFrom = *e.ArrivalRate, "gateway rate event"
				break
			}
		}
	}
	if rc := a.RateChange; rc != nil && math.IsNaN(rc.After) {
		rc.After = float64(after) / (end - rc.AtS)
	}
	a.burst(r, burst, first, last, &warnings)
	warnings = append(warnings, a.fitArrivals(w, end)...)
	return a, warnings
}

// burst sets the trigger's extra arrivals: the manifest's burst (or, for a
// rate change, the burst_start_s and burst_end_s it carries, with its
// extra_rate),
// its rate observed when the manifest does not give it; without one, the
// span of the run's burst sessions.
func (a *Arrivals) burst(r *schema.Run, n int, first, last float64, warnings *[]string) {
	var b *sim.Burst
	rate := math.NaN()
	switch {
	case r.TriggerKind == schema.TriggerBurst && r.TriggerStartS != nil && r.TriggerEndS != nil:
		b = &sim.Burst{StartS: *r.TriggerStartS, EndS: *r.TriggerEndS}
		if r.TriggerExtraRate != nil {
			rate = *r.TriggerExtraRate
		}
	case r.TriggerKind == schema.TriggerRateChange:
		var extra struct {
			Start *float64 `json:"burst_start_s"`
			End   *float64 `json:"burst_end_s"`
			Rate  *float64 `json:"extra_rate"`
		}
		if json.Unmarshal([]byte(r.TriggerExtra), &extra) == nil && extra.Start != nil && extra.End != nil && *extra.End >= *extra.Start {
			b = &sim.Burst{StartS: *extra.Start, EndS: *extra.End}
			switch {
			case r.TriggerExtraRate != nil:
				rate = *r.TriggerExtraRate
			case extra.Rate != nil:
				rate = *extra.Rate
			}
		}
	}
	if b == nil && n > 0 {
		b = &sim.Burst{StartS: first, EndS: math.Nextafter(last, math.Inf(1))}
		*warnings = append(*warnings, fmt.Sprintf("the run has %d burst sessions but no burst trigger: its replays place one over %.0f–%.0f s", n, first, last))
	}
	if b == nil {
		return
	}
	a.Burst, a.BurstFrom = b, "manifest"
	if math.IsNaN(rate) || rate < 0 {
		rate, a.BurstFrom = 0, "observed"
		if l := b.EndS - b.StartS; l > 0 {
			rate = float64(n) / l
		}
	}
	b.Rate = rate
}

// controlOf is the observed run's controller with its parameters.
func controlOf(r *schema.Run) (sim.Control, error) {
	kind := r.ControlKind
	if kind == "" {
		kind = schema.ControlNone
	}
	start := 0.0
	if r.ControlStartS != nil {
		start = *r.ControlStartS
	}
	c, err := sim.NewControl(kind, start)
	if err != nil {
		return c, fmt.Errorf("run %s: %w", r.Run, err)
	}
	var p struct {
		Low  *float64 `json:"low"`
		High *float64 `json:"high"`
		K    *float64 `json:"k"`
		KHi  *float64 `json:"k_hi"`
		K0   *float64 `json:"k0"`
	}
	if r.ControlParams != "" && json.Unmarshal([]byte(r.ControlParams), &p) != nil {
		return c, fmt.Errorf("run %s: control params %s: not a JSON object", r.Run, r.ControlParams)
	}
	set := func(dst *float64, v *float64) {
		if v != nil && *v > 0 {
			*dst = *v
		}
	}
	set(&c.Low, p.Low)
	set(&c.High, p.High)
	seti := func(dst *int, v *float64) {
		if v != nil && *v >= 1 && *v < math.MaxInt32 {
			*dst = int(*v)
		}
	}
	seti(&c.K, p.K)
	seti(&c.KHi, p.KHi)
	if kind == schema.ControlAIMD {
		seti(&c.K, p.K0)
	}
	return c, nil
}

// Calibration reports whether run c calibrates the engine of run obs: the
// same engine and model (both named), prefix caching off, and not itself a
// simulated replay.
func Calibration(obs, c *schema.Run) bool {
	return !c.PrefixCaching && c.Design != schema.DesignReplay && c.EngineName == obs.EngineName &&
		c.EngineModel != "" && c.EngineModel == obs.EngineModel
}
