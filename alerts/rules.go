package alerts

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// PaperURL is the paper the rules implement.
const PaperURL = "https://arxiv.org/abs/2611.13412"

// EvalInterval is the rule group's evaluation interval: the recorded
// series and the alerts' holds are counted in minutes.
const EvalInterval = "1m"

// Rules returns the Prometheus rule file of engine (schema.EngineVLLM or
// schema.EngineSGLang) with thresholds th: one group holding the recording
// rules, per engine instance, then the two alerts. The file's head says
// where each threshold came from.
func Rules(engine string, th Thresholds) ([]byte, error) {
	e, err := lookup(engine)
	if err != nil {
		return nil, err
	}
	n := e.names()
	var rules []*yaml.Node
	for _, w := range hitWindows {
		rules = append(rules, record(n.hitRatioName(w), e.hitRatio(w),
			fmt.Sprintf("Prefix-cache hit ratio over %s: cached over queried prompt tokens, from the counters' rates; absent while nothing is queried.", spoken(w))))
	}
	rules = append(rules,
		record(n.Running, e.gauge("sum", e.running), "Requests running, summed over data-parallel replicas."),
		record(n.Waiting, e.gauge("sum", e.waiting), "Requests waiting, summed over data-parallel replicas."),
		record(n.InEngine5m, e.inEngine(WindowS), "Requests running plus waiting, mean over 5 minutes: the load the alerts require."),
		record(n.KVUsage, e.gauge("avg", e.kv), "Fraction of the KV pool in use, averaged over data-parallel replicas."),
		record(n.Preemptions5m, e.rate(e.preemptions, WindowS), preemptionHelp(e)),
		alert(n.Onset, onsetExpr(n, th), "warning", e, onsetAnnotations(e, th),
			"Onset: the 5-minute hit ratio fell below the degraded threshold under load (the first degraded window)."),
		alert(n.Persistent, persistentExpr(n, th), "critical", e, persistentAnnotations(e, th),
			"Persistent degradation: the two latest 5-minute windows degraded under load."),
	)
	group := mapping(
		"name", scalar("outlast-"+e.name),
		"interval", scalar(EvalInterval),
		"rules", &yaml.Node{Kind: yaml.SequenceNode, Content: rules},
	)
	doc := &yaml.Node{Kind: yaml.DocumentNode, HeadComment: comment(header(e, th)), Content: []*yaml.Node{
		mapping("groups", &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{group}}),
	}}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// onsetExpr: the 5-minute ratio below the threshold, under load, on an
// engine that served 5 minutes ago already (not a cold cache) and was
// healthy within the lookback (not a workload that reuses little).
func onsetExpr(n Names, th Thresholds) string {
	return fmt.Sprintf("%s < %s\nand\n%s >= %s\nand\n%s offset %s\nand\n%s",
		n.HitRatio5m, number(th.DegradedHit.Value),
		n.InEngine5m, number(th.MinLoad.Value),
		n.HitRatio5m, duration(HoldS),
		wasHealthy(n, th))
}

// persistentExpr: every 5-minute ratio recorded over the hold below the
// threshold, the one a hold ago included (so a series younger than the
// hold, a cold start, does not fire), the load held throughout, and a
// healthy ratio within the lookback. Its value is the highest of the
// ratios over the hold.
func persistentExpr(n Names, th Thresholds) string {
	hold, thr := duration(HoldS), number(th.DegradedHit.Value)
	return fmt.Sprintf("max_over_time(%s[%s]) < %s\nand\n%s offset %s < %s\nand\nmin_over_time(%s[%s]) >= %s\nand\n%s",
		n.HitRatio5m, hold, thr,
		n.HitRatio5m, hold, thr,
		n.InEngine5m, hold, number(th.MinLoad.Value),
		wasHealthy(n, th))
}

// wasHealthy: the 5-minute ratio reached the healthy threshold within
// HealthyLookbackS (see there).
func wasHealthy(n Names, th Thresholds) string {
	return fmt.Sprintf("max_over_time(%s[%s]) >= %s", n.HitRatio5m, duration(HealthyLookbackS), number(th.HealthyHit.Value))
}

func onsetAnnotations(e *engineSpec, th Thresholds) []string {
	thr := number(th.DegradedHit.Value)
	return []string{
		"summary", fmt.Sprintf("{{ $labels.instance }}: the %s prefix-cache hit ratio fell below %s under load", e.title, thr),
		"description", fmt.Sprintf("The 5-minute prefix-cache hit ratio of %s {{ $labels.instance }} (job {{ $labels.job }}) is below %s while it holds at least %s request(s) on average: "+
			"the first degraded window of arXiv:2611.13412 §3. A dip that recovers within minutes is harmless; if the next 5 minutes are degraded too, %s fires. "+
			"A burst can leave a prefix-cached server in this regime at a load it otherwise sustains. Act before it settles: a session budgeter "+
			"(park admitted sessions at turn boundaries while the resident KV demand of active sessions exceeds 0.95 of the pool, admit below 0.75) kept every run out of it in the paper (0 of 12 collapsed), "+
			"while admission limits applied once collapsed rarely rescue it.",
			e.title, thr, number(th.MinLoad.Value), AlertPersistent),
		"paper", PaperURL,
	}
}

func persistentAnnotations(e *engineSpec, th Thresholds) []string {
	thr := number(th.DegradedHit.Value)
	return []string{
		"summary", fmt.Sprintf("{{ $labels.instance }}: %s prefix cache persistently degraded (hit ratio below %s for 10 minutes under load)", e.title, thr),
		"description", fmt.Sprintf("Every 5-minute prefix-cache hit ratio of %s {{ $labels.instance }} (job {{ $labels.job }}) over the last 10 minutes is below %s while it holds at least %s request(s) on average: "+
			"the persistently degraded regime of arXiv:2611.13412. Nearly every turn misses, the engine runs at its no-cache capacity and the backlog grows, at a load the server otherwise sustains; "+
			"it does not end when the load returns to normal. Throttling admissions rarely rescues it (an admission-only cap recovered 2 of 8 runs, after 21-23 minutes). "+
			"What does: a session budgeter at the gateway, parking admitted sessions at turn boundaries while the resident KV demand of active sessions exceeds 0.95 of the pool and admitting below 0.75; "+
			"it recovered every collapsed run in the paper (17 of 17) within 5 minutes. A restart or cache flush empties the cache and can itself trigger the regime.",
			e.title, thr, number(th.MinLoad.Value)),
		"paper", PaperURL,
	}
}

func preemptionHelp(e *engineSpec) string {
	if e.name == sglang.name {
		return "Retractions (SGLang's preemptions) per second over 5 minutes."
	}
	return "Preemptions per second over 5 minutes."
}

// header is the file's head comment: what it is, how to load it, and
// where each threshold came from.
func header(e *engineSpec, th Thresholds) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Prometheus rules for %s, written by \"outlast rules --engine %s\": the paper's detector of a persistently degraded prefix cache (\"Bursts That Outlast Themselves\", arXiv:2611.13412, %s), per engine instance.\n\n", e.title, e.name, PaperURL)
	b.WriteString("Load: list this file under rule_files in prometheus.yml and reload Prometheus; \"promtool check rules FILE\" checks it. Every recorded series keeps the labels of the engine's series but those the engine writes itself (" +
		strings.Join(append(append(append([]string(nil), e.replicas...), e.copies...), e.parts...), ", ") +
		"): instance, job and the labels of your scrape configuration stay. Each metric is read by every name outlast knows it by, the engine's \"" + e.name + ":\" and pipelines' \"" + e.name + "_\" spellings and older versions' names, the first present used.\n\n")
	b.WriteString("Thresholds:\n")
	fmt.Fprintf(&b, "  degraded hit ratio %s: %s.\n", number(th.DegradedHit.Value), th.DegradedHit.Source)
	fmt.Fprintf(&b, "  healthy hit ratio %s: %s.\n", number(th.HealthyHit.Value), th.HealthyHit.Source)
	fmt.Fprintf(&b, "  minimum load %s request(s): %s.\n", number(th.MinLoad.Value), th.MinLoad.Source)
	fmt.Fprintf(&b, "  window %s, hold %s: the paper's (§3: 5-minute windows); %s fires when the two latest 5-minute windows are degraded, the batch verdict's rule as far as a live rule can see, so a dip confined to one window does not fire.\n",
		duration(WindowS), duration(HoldS), AlertPersistent)
	fmt.Fprintf(&b, "  Neither alert judges an engine in its first 5 minutes of traffic (a cold cache), below the minimum load (an idle server), or whose 5-minute hit ratio has not reached the healthy %s within the last %s (a workload that reuses little, which the paper's thresholds do not judge).",
		number(th.HealthyHit.Value), duration(HealthyLookbackS))
	return b.String()
}

func record(name, expr, help string) *yaml.Node {
	n := mapping("record", scalar(name), "expr", literal(expr))
	n.HeadComment = comment(help)
	return n
}

func alert(name, expr, severity string, e *engineSpec, annotations []string, help string) *yaml.Node {
	var ann []any
	for i := 0; i < len(annotations); i += 2 {
		ann = append(ann, annotations[i], scalar(annotations[i+1]))
	}
	n := mapping(
		"alert", scalar(name),
		"expr", literal(expr),
		"labels", mapping("severity", scalar(severity), "serving_engine", scalar(e.name)),
		"annotations", mapping(ann...),
	)
	n.HeadComment = comment(help)
	return n
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }

func literal(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.LiteralStyle, Value: v + "\n"}
}

// mapping builds a mapping from keys and their value nodes.
func mapping(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i < len(kv); i += 2 {
		n.Content = append(n.Content, scalar(kv[i].(string)), kv[i+1].(*yaml.Node))
	}
	return n
}

// comment wraps text at 76 columns as YAML comment lines; a blank line
// stays a "#" line, and an indented line keeps its indent.
func comment(text string) string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		if strings.TrimSpace(para) == "" {
			out = append(out, "#")
			continue
		}
		lead := para[:len(para)-len(strings.TrimLeft(para, " "))]
		line := "#" + " " + lead
		cont := "#" + " " + lead + "  "
		if lead == "" {
			cont = "# "
		}
		for i, w := range strings.Fields(para) {
			if i > 0 && len(line)+1+len(w) > 76 {
				out = append(out, line)
				line = cont + w
				continue
			}
			if i > 0 {
				line += " "
			}
			line += w
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// spoken says a window in words.
func spoken(s float64) string {
	if s == 60 {
		return "1 minute"
	}
	return fmt.Sprintf("%d minutes", int(s)/60)
}
