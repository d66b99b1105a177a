package alerts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// This file writes a Grafana dashboard in Grafana's classic JSON model
// (the one dashboards are imported and shared in; Grafana's
// kinds/dashboard/dashboard_kind.cue describes it): the report's engine
// view per engine instance over the recorded series, the thresholds drawn
// on the hit ratio, and the alerts' state. The data source is a variable,
// so the file imports into any Grafana with a Prometheus data source.

// dashboardSchemaVersion is the classic model's schema version the
// dashboard is written in (Grafana 10.4 to 11 write 39); newer Grafanas
// migrate it on import.
const dashboardSchemaVersion = 39

type dashboard struct {
	Annotations   list[annotation] `json:"annotations"`
	Description   string           `json:"description"`
	Editable      bool             `json:"editable"`
	GraphTooltip  int              `json:"graphTooltip"`
	Links         []link           `json:"links"`
	Panels        []panel          `json:"panels"`
	Refresh       string           `json:"refresh"`
	SchemaVersion int              `json:"schemaVersion"`
	Tags          []string         `json:"tags"`
	Templating    list[variable]   `json:"templating"`
	Time          timeRange        `json:"time"`
	Timezone      string           `json:"timezone"`
	Title         string           `json:"title"`
	UID           string           `json:"uid"`
	Version       int              `json:"version"`
}

type list[T any] struct {
	List []T `json:"list"`
}

type dsRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// promDS is the dashboard's data source: the variable's choice.
var promDS = dsRef{Type: "prometheus", UID: "${datasource}"}

type annotation struct {
	BuiltIn    int    `json:"builtIn"`
	Datasource dsRef  `json:"datasource"`
	Enable     bool   `json:"enable"`
	Hide       bool   `json:"hide"`
	IconColor  string `json:"iconColor"`
	Name       string `json:"name"`
	Type       string `json:"type"`
}

type link struct {
	AsDropdown  bool     `json:"asDropdown"`
	Icon        string   `json:"icon"`
	IncludeVars bool     `json:"includeVars"`
	KeepTime    bool     `json:"keepTime"`
	Tags        []string `json:"tags"`
	TargetBlank bool     `json:"targetBlank"`
	Title       string   `json:"title"`
	Tooltip     string   `json:"tooltip"`
	Type        string   `json:"type"`
	URL         string   `json:"url"`
}

type variable struct {
	Current     struct{}   `json:"current"`
	Datasource  *dsRef     `json:"datasource,omitempty"`
	Definition  string     `json:"definition,omitempty"`
	Hide        int        `json:"hide"`
	IncludeAll  bool       `json:"includeAll"`
	AllValue    string     `json:"allValue,omitempty"`
	Label       string     `json:"label"`
	Multi       bool       `json:"multi"`
	Name        string     `json:"name"`
	Options     []struct{} `json:"options"`
	Query       any        `json:"query"`
	Refresh     int        `json:"refresh"`
	Regex       string     `json:"regex"`
	SkipURLSync bool       `json:"skipUrlSync"`
	Sort        int        `json:"sort"`
	Type        string     `json:"type"`
}

type timeRange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type gridPos struct {
	H int `json:"h"`
	W int `json:"w"`
	X int `json:"x"`
	Y int `json:"y"`
}

type panel struct {
	Datasource      *dsRef         `json:"datasource,omitempty"`
	Description     string         `json:"description"`
	FieldConfig     fieldConfig    `json:"fieldConfig"`
	GridPos         gridPos        `json:"gridPos"`
	ID              int            `json:"id"`
	Options         map[string]any `json:"options"`
	Targets         []target       `json:"targets,omitempty"`
	Title           string         `json:"title"`
	Transformations []struct{}     `json:"transformations"`
	Type            string         `json:"type"`
}

type fieldConfig struct {
	Defaults  any        `json:"defaults"` // fieldDefaults; {} for a text panel
	Overrides []override `json:"overrides"`
}

type fieldDefaults struct {
	Color      map[string]string `json:"color"`
	Custom     map[string]any    `json:"custom"`
	Decimals   *int              `json:"decimals,omitempty"`
	Mappings   []any             `json:"mappings"`
	Max        *float64          `json:"max,omitempty"`
	Min        *float64          `json:"min,omitempty"`
	Thresholds thresholds        `json:"thresholds"`
	Unit       string            `json:"unit"`
}

type thresholds struct {
	Mode  string `json:"mode"`
	Steps []step `json:"steps"`
}

// step is a threshold step; the first has no value (−∞), written null.
type step struct {
	Color string   `json:"color"`
	Value *float64 `json:"value"`
}

type override struct {
	Matcher    matcher    `json:"matcher"`
	Properties []property `json:"properties"`
}

type matcher struct {
	ID      string `json:"id"`
	Options string `json:"options"`
}

type property struct {
	ID    string `json:"id"`
	Value any    `json:"value"`
}

type target struct {
	Datasource   dsRef  `json:"datasource"`
	EditorMode   string `json:"editorMode"`
	Expr         string `json:"expr"`
	Instant      bool   `json:"instant"`
	LegendFormat string `json:"legendFormat"`
	Range        bool   `json:"range"`
	RefID        string `json:"refId"`
}

// Dashboard returns the Grafana dashboard of engine for the series its
// rules record, drawing th on the hit ratio.
func Dashboard(engine string, th Thresholds) ([]byte, error) {
	e, err := lookup(engine)
	if err != nil {
		return nil, err
	}
	n := e.names()
	sel := `{instance=~"$instance"}`
	alertSel := fmt.Sprintf(`ALERTS{alertname=~"%s|%s", serving_engine="%s", instance=~"$instance"}`, n.Persistent, n.Onset, n.Engine)
	zero, one := 0.0, 1.0
	deg, healthy := th.DegradedHit.Value, th.HealthyHit.Value
	d := dashboard{
		Annotations: list[annotation]{List: []annotation{{
			BuiltIn: 1, Datasource: dsRef{Type: "grafana", UID: "-- Grafana --"}, Enable: true, Hide: true,
			IconColor: "rgba(0, 211, 255, 1)", Name: "Annotations & Alerts", Type: "dashboard",
		}}},
		Description:   fmt.Sprintf("%s prefix-cache regime per engine instance, from the series of \"outlast rules --engine %s\": the detector of a persistently degraded prefix cache (arXiv:2611.13412).", e.title, e.name),
		Editable:      true,
		GraphTooltip:  1,
		Links:         []link{{Icon: "doc", TargetBlank: true, Title: "Bursts That Outlast Themselves (arXiv:2611.13412)", Type: "link", URL: PaperURL, Tags: []string{}}},
		Refresh:       "1m",
		SchemaVersion: dashboardSchemaVersion,
		Tags:          []string{"outlast", e.name, "prefix-cache"},
		Templating: list[variable]{List: []variable{
			{Label: "Data source", Name: "datasource", Query: "prometheus", Refresh: 1, Type: "datasource", Options: []struct{}{}},
			{Label: "Instance", Name: "instance", Datasource: &promDS, Definition: "label_values(" + n.HitRatio5m + ", instance)",
				Query:   map[string]string{"query": "label_values(" + n.HitRatio5m + ", instance)", "refId": "StandardVariableQuery"},
				Refresh: 2, IncludeAll: true, AllValue: ".*", Multi: true, Sort: 1, Type: "query", Options: []struct{}{}},
		}},
		Time:    timeRange{From: "now-6h", To: "now"},
		Title:   fmt.Sprintf("outlast: %s prefix-cache regime", e.title),
		UID:     "outlast-" + e.name,
		Version: 1,
	}
	d.Panels = []panel{
		{
			Type: "text", Title: "How to read this dashboard", GridPos: gridPos{H: 5, W: 24, X: 0, Y: 0},
			Options:     map[string]any{"mode": "markdown", "content": readme(e, n, th)},
			FieldConfig: fieldConfig{Defaults: struct{}{}, Overrides: []override{}},
		},
		timeseries("Prefix-cache hit ratio against the thresholds", gridPos{H: 9, W: 12, X: 0, Y: 5},
			fmt.Sprintf("The engine's prefix-cache hit ratio (cached over queried prompt tokens) over 5 minutes, the paper's window, with the 1- and 10-minute ratios. Below %s (red line) a window is degraded: %s. At %s (green line) it is healthy: %s.",
				number(deg), th.DegradedHit.Source, number(healthy), th.HealthyHit.Source),
			"percentunit", &zero, &one,
			thresholds{Mode: "absolute", Steps: []step{{Color: "dark-red", Value: nil}, {Color: "red", Value: &deg}, {Color: "green", Value: &healthy}}},
			"dashed",
			[]target{
				promTarget("A", n.HitRatio5m+sel, "{{instance}} 5 min"),
				promTarget("B", n.HitRatio1m+sel, "{{instance}} 1 min"),
				promTarget("C", n.HitRatio10m+sel, "{{instance}} 10 min"),
			}, dashedFor("1 min$"), dashedFor("10 min$")),
		timeseries("Requests running and waiting", gridPos{H: 9, W: 12, X: 12, Y: 5},
			"Requests the engine is running (solid) and holding in its queue (dashed), summed over data-parallel replicas. In the degraded regime the batch stays full and the queue grows at a load the server otherwise sustains.",
			"short", &zero, nil, plainThresholds(), "off",
			[]target{
				promTarget("A", n.Running+sel, "{{instance}} running"),
				promTarget("B", n.Waiting+sel, "{{instance}} waiting"),
			}, dashedFor("waiting$")),
		timeseries("KV cache usage", gridPos{H: 9, W: 12, X: 0, Y: 14},
			"Fraction of the engine's KV pool held by running requests (averaged over data-parallel replicas). A collapse keeps it near full: the active sessions' contexts no longer fit beside the idle sessions' cached prefixes.",
			"percentunit", &zero, &one, plainThresholds(), "off",
			[]target{promTarget("A", n.KVUsage+sel, "{{instance}}")}),
		timeseries(preemptionTitle(e), gridPos{H: 9, W: 12, X: 12, Y: 14},
			preemptionTitle(e)+", averaged over the last 5 minutes: running requests whose KV was freed because the pool ran out.",
			"short", &zero, nil, plainThresholds(), "off",
			[]target{promTarget("A", "60 * "+n.Preemptions5m+sel, "{{instance}}")}),
		alertState(gridPos{H: 7, W: 24, X: 0, Y: 23}, alertSel, n),
	}
	for i := range d.Panels {
		d.Panels[i].ID = i + 1
		d.Panels[i].Transformations = []struct{}{}
		if d.Panels[i].Type != "text" {
			d.Panels[i].Datasource = &promDS
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func promTarget(ref, expr, legend string) target {
	return target{Datasource: promDS, EditorMode: "code", Expr: expr, LegendFormat: legend, Range: true, RefID: ref}
}

func plainThresholds() thresholds {
	return thresholds{Mode: "absolute", Steps: []step{{Color: "green", Value: nil}}}
}

// dashedFor draws the series whose name matches the regular expression re
// dashed.
func dashedFor(re string) override {
	return override{Matcher: matcher{ID: "byRegexp", Options: re},
		Properties: []property{{ID: "custom.lineStyle", Value: map[string]any{"dash": []int{10, 10}, "fill": "dash"}}}}
}

func timeseries(title string, pos gridPos, desc, unit string, lo, hi *float64, th thresholds, thStyle string, targets []target, overrides ...override) panel {
	if overrides == nil {
		overrides = []override{}
	}
	return panel{
		Type: "timeseries", Title: title, GridPos: pos, Description: desc, Targets: targets,
		FieldConfig: fieldConfig{Defaults: fieldDefaults{
			Color: map[string]string{"mode": "palette-classic"},
			Custom: map[string]any{
				"drawStyle": "line", "lineWidth": 1, "fillOpacity": 0, "spanNulls": false, "showPoints": "never",
				"thresholdsStyle": map[string]string{"mode": thStyle},
			},
			Mappings: []any{}, Min: lo, Max: hi, Thresholds: th, Unit: unit,
		}, Overrides: overrides},
		Options: map[string]any{
			"legend":  map[string]any{"calcs": []string{}, "displayMode": "list", "placement": "bottom", "showLegend": true},
			"tooltip": map[string]string{"mode": "multi", "sort": "none"},
		},
	}
}

// alertState draws the alerts' state from Prometheus' ALERTS series: 1
// while an alert is pending or firing, absent otherwise.
func alertState(pos gridPos, expr string, n Names) panel {
	return panel{
		Type: "state-timeline", Title: "Alert state", GridPos: pos,
		Description: fmt.Sprintf("The rules' alerts per instance, from Prometheus' ALERTS series: %s (warning) when the 5-minute hit ratio falls below the degraded threshold under load, %s (critical) when the two latest 5-minute windows are degraded. Empty where neither fires.", n.Onset, n.Persistent),
		Targets:     []target{promTarget("A", expr, "{{instance}} {{alertname}}")},
		FieldConfig: fieldConfig{Defaults: fieldDefaults{
			Color:  map[string]string{"mode": "thresholds"},
			Custom: map[string]any{"fillOpacity": 80, "lineWidth": 0},
			Mappings: []any{map[string]any{"type": "value", "options": map[string]any{
				"1": map[string]any{"text": "firing", "color": "red", "index": 0}}}},
			Thresholds: thresholds{Mode: "absolute", Steps: []step{{Color: "red", Value: nil}}},
			Unit:       "short",
		}, Overrides: []override{}},
		Options: map[string]any{
			"showValue": "never", "mergeValues": true, "rowHeight": 0.9, "alignValue": "left",
			"legend":  map[string]any{"displayMode": "list", "placement": "bottom", "showLegend": false},
			"tooltip": map[string]string{"mode": "single", "sort": "none"},
		},
	}
}

func preemptionTitle(e *engineSpec) string {
	if e.name == sglang.name {
		return "Retractions (preemptions) per minute"
	}
	return "Preemptions per minute"
}

// readme is the dashboard's text panel: what it shows and what to do.
func readme(e *engineSpec, n Names, th Thresholds) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s's prefix cache, per instance** (series recorded by `outlast rules --engine %s`; load that rule file into Prometheus first). ", e.title, e.name)
	fmt.Fprintf(&b, "A burst can leave a prefix-cached server persistently degraded at a load it otherwise sustains: the hit ratio stays near 0.1, throughput halves and the queue grows ([arXiv:2611.13412](%s)). ", PaperURL)
	fmt.Fprintf(&b, "**%s** fires when the two latest 5-minute hit ratios are below %s under load; **%s** warns at the first. ", n.Persistent, number(th.DegradedHit.Value), n.Onset)
	b.WriteString("Throttling admissions rarely rescues a collapsed server; a session budgeter that parks admitted sessions at turn boundaries against the KV pool does, within minutes.")
	return b.String()
}
