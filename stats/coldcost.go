package stats

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Defaults of the cold-turn cost calibration (§4).
const (
	// CalibrationWindowS is the length of the calibration windows: 2 minutes.
	CalibrationWindowS = 120.0
	// CalibrationMinRunning is the number of requests that must be running
	// throughout a calibration window, so that its length is busy time.
	CalibrationMinRunning = 4.0
)

// Running-count sources of a calibration window.
const (
	RunningFromEngine  = "engine"  // the engine's running samples
	RunningFromGateway = "gateway" // turns in flight between sent_s and done_s
)

// ColdCostOptions selects calibration windows (§4).
type ColdCostOptions struct {
	// WindowS is the window length; 0 means CalibrationWindowS.
	WindowS float64
	// MinRunning is the least number of requests running throughout the
	// window; 0 means CalibrationMinRunning.
	MinRunning float64
	// MinLowCacheShare, when positive, keeps only windows in which at least
	// this share of the completed turns had less than half their prompt
	// cached: 1 selects the all-miss windows of the alternative fit (§4,
	// "fitting instead on all-miss windows of degraded cache-enabled runs").
	MinLowCacheShare float64
}

func (o ColdCostOptions) withDefaults() ColdCostOptions {
	if !(o.WindowS > 0) {
		o.WindowS = CalibrationWindowS
	}
	if !(o.MinRunning > 0) {
		o.MinRunning = CalibrationMinRunning
	}
	return o
}

// CostWindow is one calibration window (§4; the calibration scatter).
type CostWindow struct {
	Window
	Run string
	// Turns is n_w, the ok turns completing in the window, and PromptTokens
	// their total prompt ΣL_w.
	Turns        int
	PromptTokens int64
	// MinRunning is the least number of requests running in the window, and
	// RunningFrom says whether it came from the engine's samples or, when the
	// run has none, from the gateway's in-flight turns.
	MinRunning  float64
	RunningFrom string
	// LowCacheShare is the share of the turns with less than half their
	// prompt cached.
	LowCacheShare float64
}

// ColdCostWindows returns the run's complete windows of length o.WindowS
// (aligned to Run.AlignS, within [0, RunEnd)) in which at least
// o.MinRunning requests were running throughout: by the engine's running
// samples in the window (their minimum; a window without a sample is left
// out) or, when the run has no engine running samples at all, by the
// gateway's in-flight turns. Windows without completed turns are left out.
func (x *RunIndex) ColdCostWindows(o ColdCostOptions) []CostWindow {
	o = o.withDefaults()
	ws := AlignedWindows(x.Data.Run.AlignS, o.WindowS, 0, x.End)
	useEngine := x.HasEngineRunning()
	var eng []EngineWindow
	if useEngine {
		eng = x.EngineWindows(ws)
	}
	var out []CostWindow
	for k, w := range ws {
		cw := CostWindow{Window: w, Run: x.Data.Run.Run}
		if useEngine {
			cw.MinRunning, cw.RunningFrom = eng[k].MinRunning, RunningFromEngine
		} else {
			cw.MinRunning, cw.RunningFrom = x.InFlight.Min(w), RunningFromGateway
		}
		if !(cw.MinRunning >= o.MinRunning) {
			continue
		}
		tw := x.Turns.Window(w)
		if tw.Turns == 0 {
			continue
		}
		cw.Turns, cw.PromptTokens, cw.LowCacheShare = tw.Turns, tw.PromptTokens, tw.LowCacheShare
		if o.MinLowCacheShare > 0 && !(cw.LowCacheShare >= o.MinLowCacheShare) {
			continue
		}
		out = append(out, cw)
	}
	return out
}

// CostFit is the cold-turn cost c(L) = A + B·L (§4), fitted as the
// regression through the origin len_w = A·n_w + B·ΣL_w.
type CostFit struct {
	// A is the per-turn intercept in seconds and B the per-token cost in
	// seconds per token (the paper quotes B in ms: 0.146 ms = 1.46e-4 s).
	A float64
	B float64
	// SEA and SEB are their standard errors, σ̂·√diag((XᵀX)⁻¹) with
	// σ̂² = RSS/(N−2).
	SEA float64
	SEB float64
	// R2 is the uncentred R² = 1 − RSS/Σlen_w² of a fit through the origin
	// (what R's lm reports for y ~ 0 + x); the centred R² is undefined here
	// because every window has the same length.
	R2 float64
	// N is the number of windows.
	N int
}

// ErrTooFewWindows is returned by FitColdCost with fewer than 3 windows.
var ErrTooFewWindows = errors.New("stats: cold-cost fit needs at least 3 windows")

// FitColdCost regresses window length on (completed turns, total prompt
// tokens) through the origin by QR least squares (§4). The windows are put
// in a canonical order first, so the result does not depend on their order.
func FitColdCost(windows []CostWindow) (CostFit, error) {
	n := len(windows)
	nan := math.NaN()
	fit := CostFit{A: nan, B: nan, SEA: nan, SEB: nan, R2: nan, N: n}
	if n < 3 {
		return fit, ErrTooFewWindows
	}
	ws := append([]CostWindow(nil), windows...)
	sort.Slice(ws, func(i, j int) bool {
		if ws[i].Run != ws[j].Run {
			return ws[i].Run < ws[j].Run
		}
		if ws[i].Start != ws[j].Start {
			return ws[i].Start < ws[j].Start
		}
		if ws[i].End != ws[j].End {
			return ws[i].End < ws[j].End
		}
		if ws[i].Turns != ws[j].Turns {
			return ws[i].Turns < ws[j].Turns
		}
		return ws[i].PromptTokens < ws[j].PromptTokens
	})
	X := mat.NewDense(n, 2, nil)
	y := mat.NewVecDense(n, nil)
	for i, w := range ws {
		X.Set(i, 0, float64(w.Turns))
		X.Set(i, 1, float64(w.PromptTokens))
		y.SetVec(i, w.Len())
	}
	beta, se, rss, err := leastSquares(X, y)
	if err != nil {
		return fit, err
	}
	fit.A, fit.B = beta[0], beta[1]
	fit.SEA, fit.SEB = se[0], se[1]
	fit.R2 = 1 - rss/mat.Dot(y, y)
	return fit, nil
}

// leastSquares solves min ‖Xβ − y‖ by QR and returns β, the standard errors
// of β (NaN without residual degrees of freedom) and the residual sum of
// squares.
func leastSquares(X *mat.Dense, y *mat.VecDense) (beta, se []float64, rss float64, err error) {
	n, p := X.Dims()
	var qr mat.QR
	qr.Factorize(X)
	var b mat.VecDense
	if err := qr.SolveVecTo(&b, false, y); err != nil {
		return nil, nil, 0, fmt.Errorf("stats: least squares: %w", err)
	}
	var fitted, res mat.VecDense
	fitted.MulVec(X, &b)
	res.SubVec(y, &fitted)
	rss = mat.Dot(&res, &res)
	var R mat.Dense
	qr.RTo(&R)
	Rp := mat.NewTriDense(p, mat.Upper, nil)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			Rp.SetTri(i, j, R.At(i, j))
		}
	}
	var Rinv mat.TriDense
	if err := Rinv.InverseTri(Rp); err != nil {
		return nil, nil, 0, fmt.Errorf("stats: least squares: %w", err)
	}
	var cov mat.Dense
	cov.Mul(&Rinv, Rinv.T())
	beta = make([]float64, p)
	se = make([]float64, p)
	dof := n - p
	for j := 0; j < p; j++ {
		beta[j] = b.AtVec(j)
		se[j] = math.NaN()
		if dof > 0 {
			se[j] = math.Sqrt(rss / float64(dof) * cov.At(j, j))
		}
	}
	return beta, se, rss, nil
}

// Cost is c(L) = A + B·L, the engine-seconds of a cold turn with context L.
func (f CostFit) Cost(contextTokens float64) float64 { return f.A + f.B*contextTokens }

// Predicted is the fitted busy time A·n_w + B·ΣL_w of a window, for the
// calibration scatter (predicted against actual window length).
func (f CostFit) Predicted(w CostWindow) float64 {
	return f.A*float64(w.Turns) + f.B*float64(w.PromptTokens)
}

// SessionCost is S = Σ_{k=0}^{T−1} c(L_k), the engine-seconds one session
// costs when every turn misses (§4), over the turn contexts of a workload
// shape.
func (f CostFit) SessionCost(shape []int64) float64 {
	var s float64
	for _, l := range shape {
		s += f.Cost(float64(l))
	}
	return s
}

// DrainBound is 1/S, the largest arrival rate (sessions/s) at which the
// degraded regime can drain (§4, λ < 1/S); NaN when S is not positive.
func DrainBound(sessionCost float64) float64 {
	if !(sessionCost > 0) {
		return math.NaN()
	}
	return 1 / sessionCost
}

// SyntheticShape returns the turn contexts L_k = initial + k·growth for
// k = 0..turns−1 (§3: 6,144 tokens growing by 1,324 per turn, 25 turns).
func SyntheticShape(initial, growth int64, turns int) []int64 {
	if turns <= 0 {
		return nil
	}
	shape := make([]int64, turns)
	for k := range shape {
		shape[k] = initial + int64(k)*growth
	}
	return shape
}

// WorkloadShape is the synthetic shape of a run's manifest: initial context
// system_tokens + task_tokens, growth output_tokens + tool_tokens per turn,
// workload_turns turns. ok is false when any of them is null.
func (x *RunIndex) WorkloadShape() (shape []int64, ok bool) {
	r := &x.Data.Run
	if r.SystemTokens == nil || r.TaskTokens == nil || r.OutputTokens == nil || r.ToolTokens == nil || r.Turns == nil {
		return nil, false
	}
	return SyntheticShape(*r.SystemTokens+*r.TaskTokens, *r.OutputTokens+*r.ToolTokens, int(*r.Turns)), true
}

// CalibrationWindows collects the calibration windows (ColdCostWindows) of
// the runs with prefix caching disabled: the paper's independent
// calibration of c(L) (§4, "on runs with prefix caching disabled").
func CalibrationWindows(runs []*RunIndex, o ColdCostOptions) []CostWindow {
	var out []CostWindow
	for _, x := range runs {
		if !x.Data.Run.PrefixCaching {
			out = append(out, x.ColdCostWindows(o)...)
		}
	}
	return out
}

// AllMissWindows collects the windows of the alternative fit (§4): from
// persistently degraded runs with prefix caching enabled, the windows in
// which every completed turn had less than half its prompt cached (or the
// share o.MinLowCacheShare, when set).
func AllMissWindows(runs []*RunIndex, o ColdCostOptions) []CostWindow {
	if !(o.MinLowCacheShare > 0) {
		o.MinLowCacheShare = 1
	}
	var out []CostWindow
	for _, x := range runs {
		if x.Data.Run.PrefixCaching && x.Regime().Persistent {
			out = append(out, x.ColdCostWindows(o)...)
		}
	}
	return out
}

// DrainBoundSE is the drain bound 1/S of a workload shape under a cold-cost
// fit made from windows (DrainBound of CostFit.SessionCost), with its
// standard error by the delta method: se(1/S) = se(S)/S², where
// var(S) = σ̂²·gᵀ(XᵀX)⁻¹g, g = (T, ΣL_k) over the shape's T turns, X has a
// row (n_w, ΣL_w) per window, and σ̂² is recovered from fit.SEB. The
// standard error is NaN when XᵀX is singular.
func DrainBoundSE(fit CostFit, windows []CostWindow, shape []int64) (bound, se float64) {
	s := fit.SessionCost(shape)
	var sumL float64
	for _, l := range shape {
		sumL += float64(l)
	}
	g0, g1 := float64(len(shape)), sumL
	// (XᵀX) over the windows: rows (n_w, ΣL_w).
	var s00, s01, s11 float64
	for _, w := range windows {
		n, l := float64(w.Turns), float64(w.PromptTokens)
		s00 += n * n
		s01 += n * l
		s11 += l * l
	}
	det := s00*s11 - s01*s01
	if !(det > 0) {
		return DrainBound(s), math.NaN()
	}
	i00, i01, i11 := s11/det, -s01/det, s00/det
	sigma2 := fit.SEB * fit.SEB / i11
	varS := sigma2 * (g0*g0*i00 + 2*g0*g1*i01 + g1*g1*i11)
	return DrainBound(s), math.Sqrt(varS) / (s * s)
}
