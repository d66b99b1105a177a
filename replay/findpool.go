package replay

import (
	"math"
	"os"
	"strconv"
)

// The capacity-planning search of FindPool.
const (
	// HealthyShare is the share of seeds that must stay healthy.
	HealthyShare = 0.9
	// PoolPrecision is how close the search brackets the answer: the
	// largest pool that falls short is within this factor of the answer.
	PoolPrecision = 1.05
	// maxPoolGrowth bounds the search upward, as a multiple of the run's pool.
	maxPoolGrowth = 64
)

// PoolStep is one pool the search tried.
type PoolStep struct {
	Pool    int
	Outcome Outcome
	// OK: at least HealthyShare of the seeds stayed healthy.
	OK bool
}

// PoolSearch is the result of FindPool. Steps are in the order tried.
type PoolSearch struct {
	Steps []PoolStep
	// Pool is the smallest pool tried at which at least HealthyShare of the
	// seeds stayed healthy; 0 when none did up to the largest pool tried.
	Pool int
	// Below is the largest pool tried that fell short, 0 when even the
	// smallest pool that holds the largest turn passed: the answer lies in
	// (Below, Pool].
	Below int
}

// FindPool searches for the smallest KV pool, to within PoolPrecision, at
// which at least HealthyShare of opt.Seeds seeds of variant v stay healthy.
// From the run's pool it halves or doubles until the outcome changes (up
// to maxPoolGrowth times the run's pool), then bisects geometrically. It
// assumes a larger pool never hurts. The runs it simulates are read back
// from a temporary directory under opt.Out and removed.
func FindPool(m *Fitted, v Variant, opt Options) (PoolSearch, error) {
	var ps PoolSearch
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
		res, err := Replay(m, []Variant{w}, o)
		if err != nil {
			return false, err
		}
		out := res[0].Outcome()
		ok := float64(out.Healthy()) >= HealthyShare*float64(out.Runs)-1e-9
		ps.Steps = append(ps.Steps, PoolStep{Pool: pool, Outcome: out, OK: ok})
		for _, r := range res[0].Runs {
			if err := os.RemoveAll(r.Dir); err != nil {
				return false, err
			}
		}
		return ok, nil
	}
	least := (m.Workload.MaxContext + 3*blockTokens - 1) / blockTokens * blockTokens
	most := m.Engine.Pool * maxPoolGrowth
	lo, hi := 0, 0 // the largest pool that fell short and the smallest that passed (0: none yet)
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
		case lo == 0 && hi > least: // every pool so far passed: halve
			next = max(roundPool(float64(hi)/2), least)
		case hi == 0: // every pool so far fell short: double, within bounds
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
	return ps, nil
}

// roundPool rounds a pool size to three significant digits.
func roundPool(x float64) int {
	if x <= 0 {
		return blockTokens
	}
	mag := math.Pow(10, math.Floor(math.Log10(x))-2)
	return int(math.Round(math.Round(x/mag) * mag))
}
