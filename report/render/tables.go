package render

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/outlast-dev/outlast/internal/atomicfile"
	"github.com/outlast-dev/outlast/report/document"
)

// WriteTables writes every table of d, in document order, to
// dir/tables/<ID>.csv and dir/tables/<ID>.md, each atomically (temporary
// file, then rename). CSV holds the values as displayed, with "" for
// missing cells; a column with markers is followed by a "<column> marker"
// column so that values stay numeric. Markdown mirrors the HTML table.
// It validates d first and writes nothing if d is invalid.
func WriteTables(dir string, d *document.Doc) error {
	if err := document.Validate(d); err != nil {
		return err
	}
	return writeTables(dir, d)
}

// writeTables is WriteTables of a valid d.
func writeTables(dir string, d *document.Doc) error {
	out := filepath.Join(dir, TablesDir)
	if err := os.MkdirAll(out, 0o777); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, t := range document.Tables(d) {
		c, err := TableCSV(t)
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(out, t.ID+".csv"), c); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(out, t.ID+".md"), TableMarkdown(t)); err != nil {
			return err
		}
	}
	return nil
}

// TableCSV returns t as RFC 4180 CSV (header row, then one row per table
// row, "\n" line ends). See WriteTables for the layout.
func TableCSV(t *document.Table) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	marked := make([]bool, len(t.Columns))
	var head []string
	for j, c := range t.Columns {
		head = append(head, c.Header())
		if marked[j] = t.HasMarkers(j); marked[j] {
			head = append(head, c.Header()+" marker")
		}
	}
	if err := w.Write(head); err != nil {
		return nil, err
	}
	for _, row := range t.Rows {
		rec := make([]string, 0, len(head))
		for j, c := range row {
			rec = append(rec, c.String())
			if j < len(marked) && marked[j] {
				rec = append(rec, c.Marker())
			}
		}
		if err := w.Write(rec); err != nil {
			return nil, err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("report: table %q: %w", t.ID, err)
	}
	return b.Bytes(), nil
}

// TableMarkdown returns t as a GitHub-flavoured Markdown pipe table with
// its caption above and its notes below.
func TableMarkdown(t *document.Table) []byte {
	var b bytes.Buffer
	if t.Caption != "" {
		fmt.Fprintf(&b, "**%s.** %s\n\n", mdEscape(t.ID), mdEscape(t.Caption))
	}
	b.WriteByte('|')
	for _, c := range t.Columns {
		b.WriteString(" " + mdEscape(c.Header()) + " |")
	}
	b.WriteString("\n|")
	for j := range t.Columns {
		switch t.ColumnAlign(j) {
		case document.AlignRight:
			b.WriteString("---:|")
		case document.AlignCenter:
			b.WriteString(":---:|")
		default:
			b.WriteString(":---|")
		}
	}
	b.WriteByte('\n')
	for _, row := range t.Rows {
		b.WriteByte('|')
		for _, c := range row {
			s := mdEscape(c.Display())
			if m := c.Marker(); m != "" {
				s += " " + mdEscape(m)
			}
			b.WriteString(" " + s + " |")
		}
		b.WriteByte('\n')
	}
	if len(t.Notes) > 0 {
		b.WriteByte('\n')
		for _, n := range t.Notes {
			b.WriteString("- " + mdEscape(n) + "\n")
		}
	}
	return b.Bytes()
}

var mdReplacer = strings.NewReplacer(
	`\`, `\\`, `|`, `\|`, `*`, `\*`, `_`, `\_`, "`", "\\`", `<`, `&lt;`, `>`, `&gt;`,
	"\r\n", " ", "\n", " ", "\r", " ",
)

// mdEscape keeps cell text literal: no emphasis, code, HTML or broken rows.
func mdEscape(s string) string { return mdReplacer.Replace(s) }
