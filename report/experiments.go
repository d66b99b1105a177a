package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/report/render"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// experiment is the runs sharing runs.experiment and a design.
type experiment struct {
	name  string
	label string // name, with the design when the name has several sections
	// engine is the runs' engine name and version when the experiment has
	// runs of several engines or engine versions, each its own section; ""
	// otherwise.
	engine string
	// engineName and engineVersion are the parts of engine (when set), for
	// summary.json; engineVersion is "" when unknown.
	engineName, engineVersion string
	slug                      string // for IDs: ASCII letters, digits and '-'
	design                    string
	runs                      []*runInfo // by run name
}

// normDesign maps runs.design to the design whose section it gets.
func normDesign(d string) string {
	switch d = strings.ToLower(strings.TrimSpace(d)); d {
	case schema.DesignPaired, schema.DesignRecovery, schema.DesignCalibration, schema.DesignDrain, schema.DesignMixShift, schema.DesignPrevention, schema.DesignFlush, schema.DesignReplay:
		return d
	case schema.DesignNoCache:
		return schema.DesignCalibration // caching off: the c(L) calibration
	case "mixshift", "mix_shift":
		return schema.DesignMixShift
	}
	return schema.DesignObserve
}

// groupExperiments groups runs by experiment name, design and engine:
// runs of one experiment that disagree on the design get a section per
// design rather than one that fits only some of them, and runs of two
// engines or engine versions (a campaign run on vLLM and SGLang, or on two
// releases, under one experiment name) a section per engine and version,
// so that no pair, arm or count mixes them (pairs by seed would otherwise
// take one version's run of each seed and leave the other's out).
func (b *builder) groupExperiments() {
	type key struct{ name, design, engine string }
	by := map[key]*experiment{}
	var keys []key
	designs := map[string]map[string]bool{} // by name
	engines := map[string]map[string]bool{} // by name and design
	// A run whose version is unknown joins its engine's one known version
	// in the experiment: a blank is no other release.
	versions := map[string]map[string]bool{} // by name, design and engine name
	for _, r := range b.runs {
		if v := normVersion(r.run.EngineVersion); v != "" {
			add(versions, r.run.Experiment+"\x00"+normDesign(r.run.Design)+"\x00"+r.run.EngineName, v)
		}
	}
	for _, r := range b.runs {
		v := normVersion(r.run.EngineVersion)
		version := v
		if known := versions[r.run.Experiment+"\x00"+normDesign(r.run.Design)+"\x00"+r.run.EngineName]; v == "" && len(known) == 1 {
			v = sortedKeys(known)[0]
			version = v
		} else if v == "" && len(known) > 1 {
			v = "(version unknown)"
		}
		k := key{r.run.Experiment, normDesign(r.run.Design), strings.TrimSpace(r.run.EngineName + " " + v)}
		e, ok := by[k]
		if !ok {
			e = &experiment{name: k.name, design: k.design, engineName: strings.TrimSpace(r.run.EngineName), engineVersion: version}
			by[k] = e
			keys = append(keys, k)
			add(designs, k.name, k.design)
			add(engines, k.name+"\x00"+k.design, k.engine)
		}
		e.runs = append(e.runs, r)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].name != keys[j].name {
			return keys[i].name < keys[j].name
		}
		if keys[i].design != keys[j].design {
			return keys[i].design < keys[j].design
		}
		return keys[i].engine < keys[j].engine
	})
	slugs := map[string]bool{}
	for _, k := range keys {
		e := by[k]
		var parts []string
		if len(designs[k.name]) > 1 {
			parts = append(parts, k.design)
		}
		if len(engines[k.name+"\x00"+k.design]) > 1 {
			parts = append(parts, k.engine)
			e.engine = k.engine
		}
		e.slug, e.label = slugify(k.name), k.name
		if len(parts) > 0 {
			e.slug = slugify(k.name + " " + strings.Join(parts, " "))
			e.label = k.name + " (" + strings.Join(parts, ", ") + ")"
		}
		for base, n := e.slug, 2; slugs[e.slug]; n++ {
			e.slug = base + "-" + strconv.Itoa(n)
		}
		slugs[e.slug] = true
		b.exps = append(b.exps, e)
	}
}

// normVersion is an engine version as a section names it: "v0.11.0" and
// " 0.11.0" are 0.11.0.
func normVersion(v string) string { return strings.TrimPrefix(strings.TrimSpace(v), "v") }

// add adds v to the set m[k].
func add(m map[string]map[string]bool, k, v string) {
	if m[k] == nil {
		m[k] = map[string]bool{}
	}
	m[k][v] = true
}

// slugify keeps ASCII letters and digits of s and turns runs of anything
// else into one '-'.
func slugify(s string) string {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			if dash && sb.Len() > 0 {
				sb.WriteByte('-')
			}
			sb.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	if sb.Len() == 0 {
		return "x"
	}
	return sb.String()
}

// designInfo is the section of one design: its title, its introduction
// and what fills it.
type designInfo struct {
	title, intro string
	fill         func(b *builder, e *experiment, sec *document.Section, se *SummaryExperiment)
}

// designs has an entry for every design normDesign returns.
var designs = map[string]designInfo{
	schema.DesignPaired:      {"paired burst and twin", "Paired runs share every base session and differ only in the injected burst (§3). A pair is discordant when only one of its runs degraded persistently; the sign test asks whether bursts make that run the burst one.", (*builder).pairedSection},
	schema.DesignRecovery:    {"recovery after collapse", "Each controller starts while the server may already be collapsed (§6). Table 3 counts the runs collapsed when control began (the 5 minutes before it degraded); the paired tests compare arms on the seeds collapsed in every arm, which start control from matched states.", (*builder).recoverySection},
	schema.DesignCalibration: {"cold-turn cost calibration (caching off)", "With prefix caching off every turn is cold, so a busy window's length is the sum of its turns' costs. Regressing window length on (turns, prompt tokens) through the origin gives c(L) = a + b·L (§4); S = Σ c(L_k) over a session's turns is what one session costs when every turn misses, and the degraded regime can drain only below λ = 1/S.", (*builder).calibrationSection},
	schema.DesignDrain:       {"drain condition", "After the arrival rate drops, the remaining cold work W(t), the engine-seconds the sessions in the system still need if every turn misses, falls when λ < 1/S and grows otherwise (§4). Slopes are OLS over samples every 10 minutes.", (*builder).drainSection},
	schema.DesignMixShift:    {"session-mix shift", "The workload shifts from short to long sessions (§6). A controller that is too loose collapses after the shift (bottom); one that is too tight makes first-phase sessions wait (right).", (*builder).mixShiftSection},
	schema.DesignPrevention:  {"prevention", "How often each trigger left runs persistently degraded, per control (§3, §6).", (*builder).countsSection},
	schema.DesignFlush:       {"cache-flush trigger", "How often each trigger left runs persistently degraded, per control (§3, §6).", (*builder).countsSection},
	schema.DesignReplay:      {"what-if replays", "Replays of an observed run (outlast replay): the simulator fitted to the run, the run as it was (as-is) and with one thing changed per variant, each over several seeds.", (*builder).replaySection},
	schema.DesignObserve:     {"observed runs", "Runs of design observe, or of a design this report does not know: each run's hit ratio, sessions in the system, D/C, throughput and the engine's own view over time, with its verdict and the onset of degradation. The regime map places them with every other run.", (*builder).observeSection},
}

// experimentSection adds the section of one experiment, chosen by design.
func (b *builder) experimentSection(e *experiment) {
	se := SummaryExperiment{Experiment: e.name, Design: e.design, Engine: e.engine}
	if e.engine != "" {
		se.EngineName, se.EngineVersion = e.engineName, e.engineVersion
	}
	for _, r := range e.runs {
		se.Runs = append(se.Runs, r.name())
	}
	d := designs[e.design]
	sec := document.Section{ID: "exp-" + e.slug, Title: e.label + ": " + d.title, Intro: []string{d.intro}}
	d.fill(b, e, &sec, &se)
	b.latencySection(e, &sec, &se)
	b.sectionEngineView(e, &sec)
	b.verdictFinding(e)
	b.warningFindings(e)
	b.mechanismFinding(e)
	b.latencyWarnings(e)
	b.doc.Sections = append(b.doc.Sections, sec)
	b.sum.Experiments = append(b.sum.Experiments, se)
}

// observeSection draws each run of a design without a section of its own
// in its own panels, and tells when degradation began.
func (b *builder) observeSection(e *experiment, sec *document.Section, se *SummaryExperiment) {
	sec.Blocks = append(sec.Blocks, b.observePanels(e)...)
	b.onsetFinding(e)
}

// onsetFinding tells when degradation began in the runs that ended
// degraded.
func (b *builder) onsetFinding(e *experiment) {
	var deg []*runInfo
	for _, r := range e.runs {
		if degraded(r) {
			deg = append(deg, r)
		}
	}
	if len(deg) == 0 {
		b.found(e, "onsets", false, nil, numbers{"degraded_runs": 0}, "no run ended degraded.")
		return
	}
	nums := numbers{"degraded_runs": float64(len(deg))}
	for _, r := range deg {
		nums[r.name()+".onset_s"] = r.onset
	}
	b.found(e, "onsets", false, runNames(deg), nums, fmt.Sprintf("%s ended degraded: %s.", plural(len(deg), "run"),
		listRuns(deg, func(r *runInfo) string {
			if math.IsNaN(r.onset) {
				return string(r.sum.Verdict)
			}
			return fmt.Sprintf("%s from minute %s", r.sum.Verdict, fmtMin(r.onset))
		})))
}

// seeds returns the distinct seeds of runs, ascending.
func seeds(runs []*runInfo) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, r := range runs {
		if s := r.run.Seed; s != nil && !seen[*s] {
			seen[*s] = true
			out = append(out, *s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// featured picks the seed of the single-seed figures among candidates
// (ascending): Options.Seed when it is one of them, else the first, with
// a warning finding when Options.Seed names a seed e lacks.
func (b *builder) featured(e *experiment, candidates []int64) (int64, bool) {
	if len(candidates) == 0 {
		return 0, false
	}
	if b.opt.Seed != nil {
		for _, s := range candidates {
			if s == *b.opt.Seed {
				return s, true
			}
		}
		b.found(e, "seed-missing", true, nil, numbers{"seed": float64(*b.opt.Seed), "featured": float64(candidates[0])},
			fmt.Sprintf("--seed %d has no run to feature here; the figures show seed %d instead.", *b.opt.Seed, candidates[0]))
	}
	return candidates[0], true
}

// arms returns the distinct arms of runs, sorted, "none" first: the
// uncontrolled baseline leads every comparison.
func arms(runs []*runInfo) []string {
	seen := map[string]bool{}
	for _, r := range runs {
		seen[r.run.Arm] = true
	}
	out := sortedKeys(seen)
	sort.SliceStable(out, func(i, j int) bool { return out[i] == schema.ArmNone && out[j] != schema.ArmNone })
	return out
}

// armColor gives each arm of an experiment a fixed palette colour.
func armColor(all []string, arm string) string {
	for i, a := range all {
		if a == arm {
			return render.PaletteColor(i)
		}
	}
	return render.PaletteColor(0)
}

// twinArmOf returns the name the twin arm goes by in e ("no-burst",
// "twin" or "noburst"), the first present.
func twinArmOf(e *experiment) string {
	for _, a := range schema.ArmTwinAliases {
		for _, r := range e.runs {
			if r.run.Arm == a {
				return a
			}
		}
	}
	return schema.ArmTwinAliases[0]
}

// summaries returns the overview rows of runs, the input of the paper's
// tables.
func summaries(runs []*runInfo) []stats.RunSummary {
	out := make([]stats.RunSummary, len(runs))
	for i, r := range runs {
		out[i] = r.sum
	}
	return out
}

// runByName returns the run of e named name, or nil.
func runByName(e *experiment, name string) *runInfo {
	for _, r := range e.runs {
		if r.name() == name {
			return r
		}
	}
	return nil
}
