package report

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/internal/atomicfile"
)

var (
	//go:embed assets/echarts.min.js
	echartsJS string
	//go:embed assets/report.css
	reportCSS string
	//go:embed assets/guard.js
	guardJS string
	//go:embed assets/runtime.js
	runtimeJS string
)

// EChartsVersion is the version of the embedded Apache ECharts.
const EChartsVersion = "5.6.0"

// CSP is the Content-Security-Policy of every HTML report: inline scripts
// and styles only, images only from data: URLs, no network at all.
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

// WriteHTML writes d as one self-contained HTML file: ECharts, styles and
// data are inlined and the CSP forbids any request. It validates d first
// and writes nothing if d is invalid. The output depends only on d.
func WriteHTML(w io.Writer, d *Doc) error {
	if err := Validate(d); err != nil {
		return err
	}
	v, err := buildView(d)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := pageTpl.Execute(bw, v); err != nil {
		return fmt.Errorf("report: render HTML: %w", err)
	}
	return bw.Flush()
}

// WriteHTMLFile renders d with WriteHTML into path atomically.
func WriteHTMLFile(path string, d *Doc) error {
	var b bytes.Buffer
	if err := WriteHTML(&b, d); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b.Bytes())
}

type viewDoc struct {
	Title, Subtitle string
	Provenance      []KV
	Sections        []viewSection
	CSP             string
	CSS             template.CSS
	Guard, ECharts  template.JS
	Runtime         template.JS
	EChartsVersion  string
	Charts, Tables  int
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
func buildView(d *Doc) (*viewDoc, error) {
	v := &viewDoc{
		Title: d.Title, Subtitle: d.Subtitle, Provenance: d.Provenance,
		CSP: CSP, CSS: template.CSS(reportCSS),
		Guard: template.JS(guardJS), ECharts: template.JS("/* Apache ECharts " + EChartsVersion + ", Apache-2.0, embedded unmodified */\n" + echartsJS), Runtime: template.JS(runtimeJS),
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

func (v *viewDoc) block(b Block) (template.HTML, error) {
	var sb strings.Builder
	var err error
	switch b := b.(type) {
	case *Table:
		v.Tables++
		err = tableTpl.Execute(&sb, tableView(b))
	case *Note:
		err = noteTpl.Execute(&sb, b)
	case *Grid:
		cols := b.Columns
		if cols < 1 {
			cols = 2
		}
		g := gridView{Caption: b.Caption, Columns: cols}
		for _, f := range b.Figures {
			c, cerr := v.chart(f, true)
			if cerr != nil {
				return "", cerr
			}
			g.Charts = append(g.Charts, c)
		}
		err = gridTpl.Execute(&sb, g)
	case Figure:
		c, cerr := v.chart(b, false)
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

func (v *viewDoc) chart(f Figure, inGrid bool) (chartView, error) {
	c, err := buildChart(f, inGrid)
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
	Groups              []thView // nil when no column has a group
	Head                []thView
	Rows                [][]tdView
	Notes               []string
}

var alignClass = [...]string{AlignLeft: "al-l", AlignRight: "al-r", AlignCenter: "al-c", AlignAuto: "al-l"}

func tableView(t *Table) tableViewT {
	tv := tableViewT{Anchor: "tbl-" + t.ID, ID: t.ID, Caption: t.Caption, Notes: t.Notes}
	classes := make([]string, len(t.Columns))
	grouped := false
	for j, c := range t.Columns {
		classes[j] = alignClass[t.columnAlign(j)]
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
			r[j] = tdView{Text: c.display(), Marker: c.marker, Class: cls}
		}
		tv.Rows = append(tv.Rows, r)
	}
	return tv
}

var tableTpl = template.Must(template.New("table").Parse(`<figure class="table" id="{{.Anchor}}">
<figcaption>{{.Caption}} <span class="tid">[{{.ID}}]</span></figcaption>
<div class="tbl-wrap"><table class="data">
<thead>
{{- if .Groups}}
<tr class="groups">{{range .Groups}}<th colspan="{{.Span}}">{{.Text}}</th>{{end}}</tr>
{{- end}}
<tr>{{range .Head}}<th class="{{.Class}}" scope="col">{{.Text}}{{if .Unit}}<span class="unit">{{.Unit}}</span>{{end}}</th>{{end}}</tr>
</thead>
<tbody>
{{- range .Rows}}
<tr>{{range .}}<td class="{{.Class}}">{{.Text}}{{if .Marker}}<span class="mark">{{.Marker}}</span>{{end}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table></div>
{{- if .Notes}}
<ul class="tnotes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>
{{- end}}
</figure>
`))

var noteTpl = template.Must(template.New("note").Parse(`<p class="note{{if eq .Kind 1}} warn{{end}}">{{.Text}}</p>
`))

var figTpl = template.Must(template.New("fig").Parse(`<figure class="chart-fig">
{{- if .Title}}
<h3>{{.Title}}</h3>
{{- end}}
<div class="chart" id="{{.ID}}" style="height: {{.Height}}px" role="img" aria-label="{{.Title}}"></div>
{{.Script}}
{{- if .Caption}}
<figcaption>{{.Caption}}</figcaption>
{{- end}}
</figure>
`))

var gridTpl = template.Must(template.New("grid").Parse(`<figure class="grid-block">
<div class="grid" style="grid-template-columns: repeat({{.Columns}}, minmax(0, 1fr))">
{{- range .Charts}}
<div class="grid-fig">
{{- if .Title}}<h3>{{.Title}}</h3>{{end}}
<div class="chart" id="{{.ID}}" style="height: {{.Height}}px" role="img" aria-label="{{.Title}}"></div>
{{.Script}}
{{- if .Caption}}<figcaption>{{.Caption}}</figcaption>{{end}}
</div>
{{- end}}
</div>
{{- if .Caption}}
<figcaption>{{.Caption}}</figcaption>
{{- end}}
</figure>
`))

var pageTpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="outlast report">
<title>{{.Title}}</title>
<link rel="icon" href="data:,">
<style>{{.CSS}}</style>
<script>{{.Guard}}</script>
<script>{{.ECharts}}</script>
</head>
<body>
<div class="page">
<header class="doc-head">
<h1>{{.Title}}</h1>
{{- if .Subtitle}}
<p class="subtitle">{{.Subtitle}}</p>
{{- end}}
{{- if .Provenance}}
<table class="provenance">
{{- range .Provenance}}
<tr><th scope="row">{{.Key}}</th><td>{{.Value}}</td></tr>
{{- end}}
</table>
{{- end}}
</header>
{{- if .Sections}}
<nav class="toc" aria-label="Contents">
<h2>Contents</h2>
<ol>
{{- range .Sections}}
<li><a href="#{{.Anchor}}">{{.Title}}</a></li>
{{- end}}
</ol>
</nav>
{{- end}}
<main>
{{- range .Sections}}
<section class="sec" id="{{.Anchor}}">
<h2><span class="num">{{.Num}}</span>{{.Title}}</h2>
{{- range .Intro}}
<p class="intro">{{.}}</p>
{{- end}}
{{range .Blocks}}{{.}}{{end}}</section>
{{- end}}
</main>
<footer class="doc-foot">Generated by outlast: {{.Charts}} charts, {{.Tables}} tables. Charts drawn with Apache ECharts {{.EChartsVersion}} (Apache License 2.0), embedded; this file makes no network requests.</footer>
</div>
<script>{{.Runtime}}</script>
</body>
</html>
`))
