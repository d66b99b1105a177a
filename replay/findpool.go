package replay

import (
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/outlast-dev/outlast/stats"
)

// The capacity-planning search of FindPool.
const (
	// DefaultTarget is the share of seeds that must not end persistently
	// degraded, by the lower bound of its exact 95% interval.
	DefaultTarget = 0.9
	// DefaultMaxSeeds is the most seeds a pool is tried with.
	DefaultMaxSeeds = 64
	// PoolPrecision is how close the search brackets the answer: the
	// largest pool that falls short is within this factor of the answer.
	PoolPrecision = 1.05
	// maxPoolGrowth bounds the search upward, as a multiple of the run's pool.
	maxPoolGrowth = 64
)

// Decision is what a pool's seeds showed of P(not persistent) against
// the target.
type Decision string

const (
	// Meets: the one-sided 95% lower bound is at or above the target.
	Meets Decision = "meets"
	// Short: the one-sided 95% upper bound is below the target.
	Short Decision = "short"
	// Undecided: the bounds straddle the target at the most seeds allowed.
	Undecided Decision = "undecided"
)

// PoolStep is one pool the search tried.
type PoolStep struct {
	Pool    int
	Outcome Outcome
	// Lower and Upper are the one-sided 95% bounds of P(not persistent).
	Lower, Upper float64
	Decision     Decision
}

// PoolSearch is the result of FindPool. Steps are in the order tried.
type PoolSearch struct {
	Target   float64
	MaxSeeds int
	Steps    []PoolStep
	// Pool is the smallest pool tried that meets the target; 0 when none
	// did up to the largest pool tried.
	Pool int
	// Below is the largest pool tried that did not meet it (0 when even
	// the smallest pool that holds the largest turn did): the answer lies
	// in (Below, Pool]. BelowDecision says whether it fell short or its
	// seeds could not decide.
	Below         int
	BelowDecision Decision
}

// FindPool searches for the smallest KV pool, to within PoolPrecision,
// at which the one-sided 95% lower bound (Clopper–Pearson) of the share
// of variant v's seeds that do not end persistently degraded is at least
// target. A pool is tried with opt.Seeds seeds, then with twice as many,
// and so on, until the bound meets the target, the upper bound falls
// below it, or maxSeeds seeds leave it undecided (which does not meet
// it). From the run's pool the search halves or doubles until the
// decision changes (up to maxPoolGrowth times the run's pool), then
// bisects geometrically; it assumes a larger pool never hurts. The runs it
// simulates are read back from a temporary directory under opt.Out and
// removed.
func FindPool(m *Fitted, v Variant, opt Options, target float64, maxSeeds int) (PoolSearch, error) {
	ps := PoolSearch{Target: target, MaxSeeds: maxSeeds}
	if !(target > 0 && target < 1) {
		return ps, fmt.Errorf("%w: --target %g: want a share in (0, 1)", ErrVariant, target)
	}
	if maxSeeds < opt.Seeds || maxSeeds > MaxSeeds {
		return ps, fmt.Errorf("%w: --max-seeds %d: want %d (--seeds) to %d", ErrVariant, maxSeeds, opt.Seeds, MaxSeeds)
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return ps, err
	}
	tmp, err := os.MkdirTemp(opt.Out, ".find-pool-")
	if err != nil {
		return ps, err
	}
	defer os.RemoveAll(tmp)
	o := opt
	o.Out = tmp
	try := func(pool int) (bool, error) {
		w := v
		w.Name, w.Pool = "pool-"+strconv.Itoa(pool), pool
		step, err := trySeeds(m, w, o, target, maxSeeds)
		if err != nil {
			return false, err
		}
		step.Pool = pool
		ps.Steps = append(ps.Steps, step)
		return step.Decision == Meets, nil
	}
	least := (m.Workload.MaxContext + 3*blockTokens - 1) / blockTokens * blockTokens
	most := m.Engine.Pool * maxPoolGrowth
	lo, hi := 0, 0 // the largest pool that did not meet the target and the smallest that did (0: none yet)
	probe := func(pool int) error {
		ok, err := try(pool)
		if ok {
			hi = pool
		} else {
			lo = pool
		}
		return err
	}
	next := max(m.Engine.Pool, least)
	for next > 0 {
		if err := probe(next); err != nil {
			return ps, err
		}
		switch next = 0; {
		case lo == 0 && hi > least: // every pool so far met it: halve
			next = max(roundPool(float64(hi)/2), least)
		case hi == 0: // none so far met it: double, within bounds
			if n := roundPool(float64(lo) * 2); n <= most && n/blockTokens <= math.MaxInt32-2 {
				next = n
			}
		case lo > 0 && float64(hi) > float64(lo)*PoolPrecision: // bisect
			if n := roundPool(math.Sqrt(float64(lo) * float64(hi))); n > lo && n < hi {
				next = n
			}
		}
	}
	ps.Pool, ps.Below = hi, lo
	for _, s := range ps.Steps {
		if s.Pool == lo {
			ps.BelowDecision = s.Decision
		}
	}
	return ps, nil
}

// trySeeds replays variant w over opt.Seeds seeds, doubling them until
// the bounds decide against target or maxSeeds is reached; the runs are
// removed once read.
func trySeeds(m *Fitted, w Variant, o Options, target float64, maxSeeds int) (PoolStep, error) {
	var runs []RunResult
	first := uint64(ExactSeed)
	batch := o.Seeds
	for {
		b := o
		b.Seeds, b.FirstSeed = batch, first
		res, err := Replay(m, []Variant{w}, b)
		if err != nil {
			return PoolStep{}, err
		}
		for _, r := range res[0].Runs {
			if err := os.RemoveAll(r.Dir); err != nil {
				return PoolStep{}, err
			}
		}
		runs = append(runs, res[0].Runs...)
		out := newOutcome(w, runs)
		np := out.NotPersistent
		step := PoolStep{Outcome: out, Lower: np.Lower(), Upper: np.Upper(), Decision: Decide(np, target)}
		if step.Decision == Undecided && len(runs) < maxSeeds {
			first += uint64(batch)
			batch = min(len(runs), maxSeeds-len(runs))
			continue
		}
		return step, nil
	}
}

// Decide says what k of n seeds not persistently degraded show against
// target: Meets when the one-sided 95% lower bound of the share is at
// least target, Short when the upper bound is below it, else Undecided.
// Even n of n seeds meet 0.9 only from n = 29 on (0.9^29 < 0.05).
func Decide(np stats.BinomialCI, target float64) Decision {
	switch {
	case np.Lower() >= target:
		return Meets
	case np.Upper() < target:
		return Short
	}
	return Undecided
}

// roundPool rounds a pool size to three significant digits.
func roundPool(x float64) int {
	if x <= 0 {
		return blockTokens
	}
	mag := math.Pow(10, math.Floor(math.Log10(x))-2)
	return int(math.Round(math.Round(x/mag) * mag))
}
