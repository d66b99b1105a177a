package replay

import (
	"fmt"
	"math"
	"strconv"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
)

// AsIs is the variant that changes nothing: the observed run replayed.
const AsIs = "as-is"

// Simulator settings the run does not give: vLLM's defaults, as in the
// simulator's designs.
const (
	blockTokens = 16
	tokenBudget = 8192
	maxRunning  = 256
)

// Limits of the counterfactual flags.
const (
	MaxScale = 100
	MaxSeeds = 10000
)

// Variant is one counterfactual: the observed run with one thing changed.
// Each variant is one arm of the replay; its zero fields keep the run's.
type Variant struct {
	Name string
	// Pool is the KV pool in tokens.
	Pool int
	// Control replaces the run's controller.
	Control *sim.Control
	// Scale multiplies the base arrivals.
	Scale float64
	// Drop leaves out the sessions of an origin (and, for burst, the
	// burst): the run's synthetic twin.
	Drop string
}

// PoolVariant is the run with a KV pool of tokens.
func PoolVariant(tokens int) Variant {
	return Variant{Name: "pool-" + strconv.Itoa(tokens), Pool: tokens}
}

// ControlVariant is the run under controller c.
func ControlVariant(c sim.Control) Variant {
	return Variant{Name: c.Kind + "-" + strconv.FormatFloat(c.StartS, 'f', -1, 64) + "s", Control: &c}
}

// ScaleVariant is the run with x times its base arrivals.
func ScaleVariant(x float64) Variant {
	return Variant{Name: "arrivals-x" + strconv.FormatFloat(x, 'f', -1, 64), Scale: x}
}

// DropVariant is the run without the sessions of an origin.
func DropVariant(origin string) Variant { return Variant{Name: "drop-" + origin, Drop: origin} }

// Check reports a variant out of range for the model: a pool that cannot
// hold the largest turn, a control starting outside the run, a scale out
// of (0, MaxScale], an origin the run does not have.
func (m *Fitted) Check(v Variant) error {
	switch {
	case v.Pool != 0 && (v.Pool < m.Workload.MaxContext+2*blockTokens || v.Pool/blockTokens > math.MaxInt32-2):
		return fmt.Errorf("%w: --pool %d: want at least %d tokens (the run's largest turn, %d, plus two blocks) and fewer than 2^31 blocks",
			ErrVariant, v.Pool, m.Workload.MaxContext+2*blockTokens, m.Workload.MaxContext)
	case v.Control != nil && !(v.Control.StartS >= 0 && v.Control.StartS < m.DurationS):
		return fmt.Errorf("%w: --control %s@%g: the start must lie within the run, [0, %g) s", ErrVariant, v.Control.Kind, v.Control.StartS, m.DurationS)
	case v.Scale != 0 && !(v.Scale > 0 && v.Scale <= MaxScale):
		return fmt.Errorf("%w: --arrival-scale %g: want (0, %d]", ErrVariant, v.Scale, MaxScale)
	case v.Scale != 0 && m.Arrivals.BaseRate*v.Scale > 10:
		return fmt.Errorf("%w: --arrival-scale %g: %g base sessions/s is above the simulator's 10/s", ErrVariant, v.Scale, m.Arrivals.BaseRate*v.Scale)
	case v.Drop != "" && !sim.ValidName(v.Drop):
		return fmt.Errorf("%w: --drop-origin %q: want an origin name of [A-Za-z0-9._-]", ErrVariant, v.Drop)
	case v.Drop != "" && m.Workload.Origins[v.Drop] == 0:
		return fmt.Errorf("%w: --drop-origin %s: the run has no sessions of that origin (it has %s)", ErrVariant, v.Drop, originList(m.Workload.Origins))
	case v.Drop != "" && len(m.Workload.Origins) == 1:
		return fmt.Errorf("%w: --drop-origin %s: that would drop every session of the run", ErrVariant, v.Drop)
	}
	return nil
}

// SameAsIs says, when v would change nothing of the run, which of its
// settings is the run's own ("" when it changes something): its replays
// would repeat the as-is variant's, seed for seed, under another name.
func (m *Fitted) SameAsIs(v Variant) string {
	switch {
	case v.Pool != 0 && v.Pool == m.Engine.Pool:
		return fmt.Sprintf("--pool %d is the run's own KV pool", v.Pool)
	case v.Control != nil && v.Control.Kind == schema.ControlNone && m.Arm.Control.Kind == schema.ControlNone:
		return "--control none: the run had no controller"
	case v.Control != nil && *v.Control == m.Arm.Control:
		return fmt.Sprintf("--control %s@%g is the run's own controller", v.Control.Kind, v.Control.StartS)
	case v.Scale == 1:
		return "--arrival-scale 1 keeps the run's arrivals"
	}
	return ""
}

func originList(origins map[string]int) string {
	s := ""
	for _, o := range sortedKeys(origins) {
		if s != "" {
			s += ", "
		}
		s += o + " (" + strconv.Itoa(origins[o]) + ")"
	}
	return s
}

// Config is the simulator configuration of a variant over seeds 1..seeds:
// one arm, named after the variant, replaying the run's trace.
func (m *Fitted) Config(v Variant, seeds int) sim.Config {
	arm := m.Arm
	arm.Name = v.Name
	if v.Control != nil {
		arm.Control = *v.Control
	}
	scale := 1.0
	if v.Scale > 0 {
		scale = v.Scale
	}
	if rc := arm.RateChange; rc != nil {
		r := *rc
		r.After *= scale
		arm.RateChange = &r
	}
	tr := &sim.Trace{Source: m.Run, Sessions: m.Workload.Sessions, ExactSeed: ExactSeed, Scale: scale}
	if v.Drop != "" {
		tr.Drop = []string{v.Drop}
		if v.Drop == schema.OriginBurst {
			arm.Burst = nil // the twin: its slot stays
		}
	}
	pool := m.Engine.Pool
	if v.Pool > 0 {
		pool = v.Pool
	}
	return sim.Config{
		Experiment: m.Run + "-replay", Design: schema.DesignReplay, FirstSeed: ExactSeed, Seeds: seeds, DurationS: m.DurationS,
		Engine: m.Engine.Name, PrefixCaching: m.Engine.PrefixCaching, PoolTokens: pool, BlockTokens: blockTokens,
		TokenBudget: tokenBudget, MaxRunning: maxRunning, MaxContext: m.Workload.MaxContext, Cost: m.Engine.Cost,
		Lambda: m.Arrivals.BaseRate * scale, SystemTokens: m.Workload.SystemTokens, ShiftS: m.Arrivals.ShiftS,
		Workload: tr, Arms: []sim.Arm{arm},
	}
}
