package alerts_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/alerts"
	"github.com/outlast-dev/outlast/internal/golden"
)

// The dashboard is checked against the fields of Grafana's classic
// dashboard JSON model that decide whether it imports and draws
// (grafana/grafana kinds/dashboard/dashboard_kind.cue, and its JSON model
// docs): the dashboard's identity and schema version, each panel's type,
// id and place on the 24-column grid, its data source and targets, and a
// data source variable that every data source reference goes through.

type jsonObj = map[string]any

func TestDashboardFollowsGrafanasModel(t *testing.T) {
	for _, e := range alerts.Engines {
		t.Run(e, func(t *testing.T) {
			b, err := alerts.Dashboard(e, alerts.Paper())
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "dashboard-"+e+".json"), b)
			var d jsonObj
			if err := json.Unmarshal(b, &d); err != nil {
				t.Fatal(err)
			}
			for _, err := range checkDashboard(d) {
				t.Error(err)
			}
			names, err := alerts.SeriesNames(e)
			if err != nil {
				t.Fatal(err)
			}
			exprs := strings.Join(allExprs(d), "\n")
			for _, want := range []string{names.HitRatio5m, names.Running, names.Waiting, names.KVUsage, names.Preemptions5m, "ALERTS{", names.Persistent} {
				if !strings.Contains(exprs, want) {
					t.Errorf("no panel queries %s", want)
				}
			}
		})
	}
}

// TestDashboardCheckCatches feeds checkDashboard broken dashboards: a
// check that passes everything checks nothing.
func TestDashboardCheckCatches(t *testing.T) {
	b, err := alerts.Dashboard("vllm", alerts.Paper())
	if err != nil {
		t.Fatal(err)
	}
	for name, breakIt := range map[string]func(d jsonObj){
		"no schemaVersion":    func(d jsonObj) { delete(d, "schemaVersion") },
		"short uid":           func(d jsonObj) { d["uid"] = "x" },
		"panel off the grid":  func(d jsonObj) { panels(d)[1]["gridPos"].(jsonObj)["x"] = 20.0 },
		"overlapping panels":  func(d jsonObj) { panels(d)[2]["gridPos"].(jsonObj)["y"] = 6.0 },
		"duplicate panel id":  func(d jsonObj) { panels(d)[2]["id"] = panels(d)[1]["id"] },
		"fixed data source":   func(d jsonObj) { panels(d)[1]["datasource"].(jsonObj)["uid"] = "P1809F7CD0C75ACF3" },
		"target without expr": func(d jsonObj) { targets(panels(d)[1])[0]["expr"] = "" },
		"repeated refId":      func(d jsonObj) { targets(panels(d)[1])[1]["refId"] = "A" },
		"undefined variable": func(d jsonObj) {
			targets(panels(d)[1])[0]["expr"] = `up{instance=~"$node"}`
		},
		"no datasource variable": func(d jsonObj) {
			d["templating"].(jsonObj)["list"] = d["templating"].(jsonObj)["list"].([]any)[1:]
		},
		"unsorted thresholds": func(d jsonObj) {
			steps := panels(d)[1]["fieldConfig"].(jsonObj)["defaults"].(jsonObj)["thresholds"].(jsonObj)["steps"].([]any)
			steps[1], steps[2] = steps[2], steps[1]
		},
	} {
		var d jsonObj
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		breakIt(d)
		if errs := checkDashboard(d); len(errs) == 0 {
			t.Errorf("%s: checkDashboard found nothing wrong", name)
		}
	}
}

func panels(d jsonObj) []jsonObj {
	var out []jsonObj
	for _, p := range d["panels"].([]any) {
		out = append(out, p.(jsonObj))
	}
	return out
}

func targets(p jsonObj) []jsonObj {
	var out []jsonObj
	ts, _ := p["targets"].([]any)
	for _, x := range ts {
		out = append(out, x.(jsonObj))
	}
	return out
}

func allExprs(d jsonObj) []string {
	var out []string
	for _, p := range panels(d) {
		for _, tg := range targets(p) {
			out = append(out, tg["expr"].(string))
		}
	}
	return out
}

// panelTypes are the panel plugins of a default Grafana the dashboard may
// use.
var panelTypes = map[string]bool{"timeseries": true, "text": true, "state-timeline": true, "stat": true, "row": true}

var varRef = regexp.MustCompile(`\$\{?(\w+)`)

// checkDashboard returns what in d Grafana's model does not allow, or
// would leave undrawn.
func checkDashboard(d jsonObj) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	str := func(o jsonObj, k string) string { s, _ := o[k].(string); return s }
	if str(d, "title") == "" {
		bad("no title")
	}
	if uid := str(d, "uid"); len(uid) < 8 || len(uid) > 40 {
		bad("uid %q: want 8 to 40 characters", uid)
	}
	if v, ok := d["schemaVersion"].(float64); !ok || v < 36 || v > 65535 {
		bad("schemaVersion %v: want a number the classic model knows (36 and on)", d["schemaVersion"])
	}
	if g, ok := d["graphTooltip"].(float64); !ok || g != 0 && g != 1 && g != 2 {
		bad("graphTooltip %v: want 0, 1 or 2", d["graphTooltip"])
	}
	if tr, ok := d["time"].(jsonObj); !ok || str(tr, "from") == "" || str(tr, "to") == "" {
		bad("time: want from and to")
	}
	if _, ok := d["annotations"].(jsonObj)["list"].([]any); !ok {
		bad("annotations: want a list")
	}
	vars := map[string]bool{"__rate_interval": true, "__interval": true, "__range": true}
	dsVar := ""
	tl, _ := d["templating"].(jsonObj)
	vs, ok := tl["list"].([]any)
	if !ok {
		bad("templating: want a list")
	}
	for _, v := range vs {
		v := v.(jsonObj)
		name := str(v, "name")
		switch typ := str(v, "type"); typ {
		case "datasource":
			if str(v, "query") != "prometheus" {
				bad("variable %s: a datasource variable of type %q, want prometheus", name, v["query"])
			}
			dsVar = name
		case "query", "custom", "constant", "interval", "textbox", "adhoc":
		default:
			bad("variable %s: type %q", name, typ)
		}
		if h, ok := v["hide"].(float64); !ok || h < 0 || h > 2 {
			bad("variable %s: hide %v", name, v["hide"])
		}
		vars[name] = true
	}
	if dsVar == "" {
		bad("no datasource variable: the dashboard is bound to one Grafana's data source")
	}
	checkDS := func(where string, ds any) {
		o, ok := ds.(jsonObj)
		if !ok || str(o, "type") != "prometheus" || str(o, "uid") != "${"+dsVar+"}" {
			bad("%s: data source %v, want the variable ${%s}", where, ds, dsVar)
		}
	}
	ps, ok := d["panels"].([]any)
	if !ok || len(ps) == 0 {
		bad("no panels")
		return errs
	}
	ids := map[float64]bool{}
	type rect struct{ x, y, w, h int }
	var placed []rect
	for i, p := range ps {
		p := p.(jsonObj)
		where := fmt.Sprintf("panel %d (%s)", i, str(p, "title"))
		typ := str(p, "type")
		if !panelTypes[typ] {
			bad("%s: type %q", where, typ)
		}
		id, ok := p["id"].(float64)
		if !ok || id < 1 || ids[id] {
			bad("%s: id %v missing or repeated", where, p["id"])
		}
		ids[id] = true
		g, _ := p["gridPos"].(jsonObj)
		x, y, w, h := num(g["x"]), num(g["y"]), num(g["w"]), num(g["h"])
		if h <= 0 || w <= 0 || w > 24 || x < 0 || x >= 24 || x+w > 24 || y < 0 {
			bad("%s: gridPos %v off Grafana's 24-column grid", where, g)
		}
		r := rect{x, y, w, h}
		for _, q := range placed {
			if r.x < q.x+q.w && q.x < r.x+r.w && r.y < q.y+q.h && q.y < r.y+r.h {
				bad("%s: gridPos %v overlaps another panel", where, g)
			}
		}
		placed = append(placed, r)
		fc, ok := p["fieldConfig"].(jsonObj)
		if _, ok2 := fc["overrides"].([]any); !ok || fc["defaults"] == nil || !ok2 {
			bad("%s: fieldConfig wants defaults and overrides", where)
		}
		if ths, ok := fc["defaults"].(jsonObj)["thresholds"].(jsonObj); ok {
			steps, _ := ths["steps"].([]any)
			for k, s := range steps {
				v := s.(jsonObj)["value"]
				if k == 0 && v != nil {
					bad("%s: the first threshold step must be null (−∞)", where)
				}
				prev, _ := steps[max(k-1, 0)].(jsonObj)["value"].(float64)
				if f, ok := v.(float64); k > 0 && !ok || k > 1 && f <= prev {
					bad("%s: threshold steps not sorted by value", where)
				}
			}
		}
		if _, ok := p["options"].(jsonObj); !ok {
			bad("%s: no options", where)
		}
		if typ == "text" || typ == "row" {
			continue
		}
		checkDS(where, p["datasource"])
		tgs := targets(p)
		if len(tgs) == 0 {
			bad("%s: no targets", where)
		}
		refs := map[string]bool{}
		for _, tg := range tgs {
			ref := str(tg, "refId")
			if ref == "" || refs[ref] {
				bad("%s: refId %q missing or repeated", where, ref)
			}
			refs[ref] = true
			checkDS(where+" target "+ref, tg["datasource"])
			expr := str(tg, "expr")
			if strings.TrimSpace(expr) == "" {
				bad("%s target %s: no expr", where, ref)
			}
			for _, m := range varRef.FindAllStringSubmatch(expr, -1) {
				if !vars[m[1]] {
					bad("%s target %s: variable $%s is not defined", where, ref, m[1])
				}
			}
		}
	}
	return errs
}

// num reads a JSON number as an int; -1 when it is none.
func num(v any) int {
	f, ok := v.(float64)
	if !ok {
		return -1
	}
	return int(f)
}
