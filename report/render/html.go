package render

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"io"

	"github.com/outlast-dev/outlast/internal/atomicfile"
	"github.com/outlast-dev/outlast/report/model"
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
func WriteHTML(w io.Writer, d *model.Doc) error {
	if err := model.Validate(d); err != nil {
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
func WriteHTMLFile(path string, d *model.Doc) error {
	var b bytes.Buffer
	if err := WriteHTML(&b, d); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b.Bytes())
}
