package render

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
)

type viewDoc struct {
	Title, Subtitle  string
	Provenance       []document.KV
	Sections         []viewSection
	CSP              string
	CSS              template.CSS
	Guard, ECharts   template.JS
	Runtime, TableJS template.JS
	EChartsVersion   string
	Charts, Tables   int
}

type viewSection struct {
	Anchor, Num, Title string
	Intro              []string
	Blocks             []template.HTML
}

// buildView renders every block to HTML in document order. Blocks are
// rendered by small templates so that all text goes through html/template
// escaping; chart options are checked to contain no '<' before they are
// trusted inside a <script> element.
func buildView(d *document.Doc) (*viewDoc, error) {
	v := &viewDoc{
		Title: d.Title, Subtitle: d.Subtitle, Provenance: d.Provenance,
		CSP: CSP, CSS: template.CSS(reportCSS),
		Guard: template.JS(guardJS), ECharts: template.JS(echartsScript), Runtime: template.JS(runtimeJS), TableJS: template.JS(tablesJS),
		EChartsVersion: EChartsVersion,
	}
	for i := range d.Sections {
		s := &d.Sections[i]
		vs := viewSection{Anchor: "sec-" + s.ID, Num: strconv.Itoa(i + 1), Title: s.Title, Intro: s.Intro}
		for _, b := range s.Blocks {
			h, err := v.block(b)
			if err != nil {
				return nil, err
			}
			vs.Blocks = append(vs.Blocks, h)
		}
		v.Sections = append(v.Sections, vs)
	}
	return v, nil
}

func (v *viewDoc) block(b document.Block) (template.HTML, error) {
	var sb strings.Builder
	var err error
	switch b := b.(type) {
	case *document.Table:
		v.Tables++
		err = tableTpl.Execute(&sb, tableView(b))
	case *document.Note:
		err = noteTpl.Execute(&sb, b)
	case *document.List:
		err = listTpl.Execute(&sb, b)
	case *document.Grid:
		cols := b.Columns
		if cols < 1 {
			cols = 2
		}
		g := gridView{Caption: b.Caption, Columns: cols}
		for _, f := range b.Figures {
			c, cerr := v.chartIn(f, true, cols)
			if cerr != nil {
				return "", cerr
			}
			g.Charts = append(g.Charts, c)
		}
		err = gridTpl.Execute(&sb, g)
	case document.Figure:
		c, cerr := v.chartIn(b, false, 1)
		if cerr != nil {
			return "", cerr
		}
		err = figTpl.Execute(&sb, c)
	default:
		return "", fmt.Errorf("report: unknown block %T", b)
	}
	if err != nil {
		return "", fmt.Errorf("report: render block: %w", err)
	}
	return template.HTML(sb.String()), nil
}

type chartView struct {
	chartSpec
	Script template.HTML
}

type gridView struct {
	Caption string
	Columns int
	Charts  []chartView
}

func (v *viewDoc) chartIn(f document.Figure, inGrid bool, cols int) (chartView, error) {
	c, err := buildChartIn(f, inGrid, cols, true)
	if err != nil {
		return chartView{}, err
	}
	// encoding/json escapes '<', '>' and '&' in strings and data are
	// numbers, so this only fails on a bug; it keeps "</script>" out.
	if strings.ContainsAny(c.Option, "<>") {
		return chartView{}, fmt.Errorf("report: figure %q: option JSON contains '<' or '>'", f.FigureID())
	}
	v.Charts++
	tip := ""
	if c.Tooltip != "" {
		tip = ` data-tooltip="` + c.Tooltip + `"`
	}
	script := `<script type="application/json" class="chart-option" data-chart="` + c.ID + `"` + tip +
		` data-points="` + strconv.Itoa(c.Points) + `">` + c.Option + `</script>`
	return chartView{chartSpec: c, Script: template.HTML(script)}, nil
}

type thView struct {
	Text, Unit, Class string
	Span              int
}

type tdView struct {
	Text, Marker, Class string
}

type tableViewT struct {
	Anchor, ID, Caption string
	Sortable            bool
	Groups              []thView // nil when no column has a group
	Head                []thView
	Rows                [][]tdView
	Notes               []string
}

var alignClass = [...]string{document.AlignLeft: "al-l", document.AlignRight: "al-r", document.AlignCenter: "al-c", document.AlignAuto: "al-l"}

func tableView(t *document.Table) tableViewT {
	tv := tableViewT{Anchor: "tbl-" + t.ID, ID: t.ID, Caption: t.Caption, Notes: t.Notes, Sortable: t.Sortable}
	classes := make([]string, len(t.Columns))
	grouped := false
	for j, c := range t.Columns {
		classes[j] = alignClass[t.ColumnAlign(j)]
		tv.Head = append(tv.Head, thView{Text: c.Name, Unit: c.Unit, Class: classes[j]})
		grouped = grouped || c.Group != ""
	}
	if grouped {
		for j := 0; j < len(t.Columns); {
			k := j + 1
			for k < len(t.Columns) && t.Columns[k].Group == t.Columns[j].Group {
				k++
			}
			tv.Groups = append(tv.Groups, thView{Text: t.Columns[j].Group, Span: k - j})
			j = k
		}
	}
	for _, row := range t.Rows {
		r := make([]tdView, len(row))
		for j, c := range row {
			cls := classes[j]
			if c.IsMissing() {
				cls += " missing"
			}
			r[j] = tdView{Text: c.Display(), Marker: c.Marker(), Class: cls}
		}
		tv.Rows = append(tv.Rows, r)
	}
	return tv
}
