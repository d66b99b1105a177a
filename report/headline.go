package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// The page opens the way a researcher reads it: what the runs are and how
// to read them (lead), then each experiment's headline figure with its
// findings, then the overview, then the sections by design.

// headlineArms bounds the arms a headline figure draws.
const headlineArms = 8

// headlineHeight is a headline panel's height, in CSS pixels: the first
// one fits a laptop's first screen under the title and the lead.
const headlineHeight = 210

// designRank orders the experiments of the first section: the experiments
// that test the paper's claim first, the calibration that supports them
// last.
var designRank = map[string]int{
	schema.DesignPaired: 0, schema.DesignRecovery: 1, schema.DesignPrevention: 2, schema.DesignFlush: 3,
	schema.DesignMixShift: 4, schema.DesignDrain: 5, schema.DesignObserve: 6, schema.DesignReplay: 7, schema.DesignCalibration: 8,
}

// lead says what the page holds and how to read it, and cites the paper.
func (b *builder) lead() []string {
	return []string{
		fmt.Sprintf("How to read this page: %s, one server and workload each; each experiment's headline figure and findings come first. "+
			"Verdicts, from 5-minute windows after the trigger (degraded: hit ratio below %.1f): never-degraded, none degraded; recovered-alone, recovered-under-control, degraded, then back to %.1f or more for good, without or with a controller; "+
			"persistent, degraded from the first degraded window to the end; partial, none of these; unknown, uncached, cache-unreported, no-turns: no verdict (rules: the overview's note). "+
			"Measures and §: Bursts That Outlast Themselves: Persistent Degradation in Prefix-Cached Agent Serving (arXiv:2611.13412).",
			plural(len(b.runs), "run"), stats.DegradedHit, stats.RecoveredHit),
	}
}

// headlineOrder returns the experiments in the order of the first
// section: by designRank, else as grouped.
func (b *builder) headlineOrder() []*experiment {
	out := append([]*experiment(nil), b.exps...)
	sort.SliceStable(out, func(i, j int) bool { return designRank[out[i].design] < designRank[out[j].design] })
	return out
}

// headline is e's headline figure: one seed's runs, an arm each (at most
// headlineArms), the hit ratio per minute beside the sessions in the
// system, trigger shaded and control start marked. Runs without seeds
// draw the first runs by verdict, the worst first.
func (b *builder) headline(e *experiment) *document.Grid {
	runs, what := b.headlineRuns(e)
	if len(runs) == 0 {
		return nil
	}
	all := arms(e.runs)
	bands, marks := annotate(runs...)
	hit := &document.TimeSeries{ID: "head-" + e.slug + "-hit", Title: e.label + ": prefix-cache hit ratio", YAxes: []document.Axis{{Name: "hit ratio", Min: 0, Max: 1}}, Bands: bands, Marks: marks, Height: headlineHeight}
	ses := &document.TimeSeries{ID: "head-" + e.slug + "-sessions", Title: e.label + ": sessions in the system", YAxes: []document.Axis{{Name: "sessions"}}, Bands: bands, Marks: marks, Height: headlineHeight}
	byArm := len(arms(runs)) == len(runs)
	twin := twinArmOf(e)
	for _, r := range runs {
		name, color := r.name(), armColor(all, r.run.Arm)
		switch {
		case !byArm:
			color = armColor(runNames(runs), r.name())
		case e.design == schema.DesignPaired && r.run.Arm == twin:
			name, color = r.run.Arm, twinColor // the paired figures' colours
		case e.design == schema.DesignPaired && r.run.Arm == schema.ArmBurst:
			name, color = r.run.Arm, burstColor
		default:
			name = orDash(r.run.Arm)
		}
		hit.Series = append(hit.Series, runSeries(name, r, mHit, color))
		ses.Series = append(ses.Series, runSeries(name, r, mSessions, color))
	}
	return &document.Grid{
		Caption: fmt.Sprintf("%s (%s): %s. Per minute, the token-weighted prefix-cache hit ratio (left) and the mean sessions in the system (right); trigger shaded, control start marked. Its section has the rest.",
			e.label, designs[e.design].title, what),
		Columns: 2,
		Figures: []document.Figure{runSpan(hit, runs...), runSpan(ses, runs...)},
	}
}

// headlineRuns picks the runs of e's headline figure and says which they
// are. With seeds: Options.Seed when e has it, else the first seed whose
// arms ended differently (one degraded, another not: what the experiment
// is about), else the first seed; one run per arm.
func (b *builder) headlineRuns(e *experiment) ([]*runInfo, string) {
	bySeed := map[int64][]*runInfo{}
	for _, r := range e.runs {
		if s := r.run.Seed; s != nil {
			bySeed[*s] = append(bySeed[*s], r)
		}
	}
	ss := seeds(e.runs)
	if len(ss) == 0 {
		drawn, _ := pick(e.runs, headlineArms, verdictRank)
		return drawn, fmt.Sprintf("%s, the most degraded first", plural(len(drawn), "run"))
	}
	seed, why := ss[0], "the first seed"
	for _, s := range ss {
		if b.opt.Seed != nil && s == *b.opt.Seed {
			seed, why = s, "the seed asked for"
			break
		}
		if why == "the first seed" && mixedOutcomes(bySeed[s]) {
			seed, why = s, "the first seed whose arms ended differently"
		}
	}
	var runs []*runInfo
	seen := map[string]bool{}
	for _, r := range bySeed[seed] { // by run name
		if !seen[r.run.Arm] && len(runs) < headlineArms {
			seen[r.run.Arm] = true
			runs = append(runs, r)
		}
	}
	return runs, fmt.Sprintf("seed %d (%s), %s", seed, why, plural(len(runs), "arm"))
}

// mixedOutcomes reports whether some of runs ended degraded and some did
// not.
func mixedOutcomes(runs []*runInfo) bool {
	var deg, not bool
	for _, r := range runs {
		if degraded(r) {
			deg = true
		} else {
			not = true
		}
	}
	return deg && not
}

// shortName is r's name as the overview shows it: without the first
// part of the name ("recovery-" of recovery-s501-budgeter) when every run
// of its experiment starts with it, the experiment being in its column;
// the whole name is on hover and in the files.
func shortName(r *runInfo, e *experiment) string {
	name := r.name()
	first, rest, ok := strings.Cut(name, "-")
	if !ok || rest == "" || len(e.runs) < 2 {
		return name
	}
	for _, o := range e.runs {
		if !strings.HasPrefix(o.name(), first+"-") {
			return name
		}
	}
	return rest
}
