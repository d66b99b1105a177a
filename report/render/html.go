package render

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	"github.com/outlast-dev/outlast/internal/atomicfile"
	"github.com/outlast-dev/outlast/report/document"
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
	//go:embed assets/tables.js
	tablesJS string
)

// EChartsVersion is the version of the embedded Apache ECharts.
const EChartsVersion = "5.6.0"

// echartsScript is the inline script that defines ECharts.
var echartsScript = "/* Apache ECharts " + EChartsVersion + ", Apache-2.0, embedded unmodified */\n" + echartsJS

// inlineScripts are the page's code, in page order: the error guard,
// ECharts, the chart runtime and the table script. The chart options are
// JSON data blocks, which no policy governs because they do not run.
var inlineScripts = []string{guardJS, echartsScript, runtimeJS, tablesJS}

// CSP is the Content-Security-Policy of every HTML report: only the page's
// own inline scripts, each allowed by its sha256, so that no other script
// can run even if one were injected into the page; inline styles; images
// only from data: URLs; no network at all.
var CSP = "default-src 'none'; script-src " + scriptHashes(inlineScripts) + "; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

// scriptHashes lists the CSP hash source of each script.
func scriptHashes(scripts []string) string {
	hs := make([]string, len(scripts))
	for i, s := range scripts {
		sum := sha256.Sum256([]byte(s))
		hs[i] = "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	return strings.Join(hs, " ")
}

// WriteHTML writes d as one self-contained HTML file: ECharts, styles and
// data are inlined and the CSP forbids any request. It validates d first
// and writes nothing if d is invalid. The output depends only on d.
func WriteHTML(w io.Writer, d *document.Doc) error {
	if err := document.Validate(d); err != nil {
		return err
	}
	return writeHTML(w, d)
}

// writeHTML is WriteHTML of a valid d.
func writeHTML(w io.Writer, d *document.Doc) error {
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
func WriteHTMLFile(path string, d *document.Doc) error {
	return atomicfile.Write(path, func(w io.Writer) error { return WriteHTML(w, d) })
}
