package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/internal/atomicfile"
)

// WriteTables writes every table of d, in document order, to
// dir/tables/<ID>.csv and dir/tables/<ID>.md, each atomically (temporary
// file, then rename). CSV holds the values as displayed, with "" for
// missing cells; a column with markers is followed by a "<column> marker"
// column so that values stay numeric. Markdown mirrors the HTML table.
func WriteTables(dir string, d *Doc) error {
	if err := Validate(d); err != nil {
		return err
	}
	out := filepath.Join(dir, "tables")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, t := range Tables(d) {
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

// Tables returns the tables of d in document order.
func Tables(d *Doc) []*Table {
	var ts []*Table
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			if t, ok := b.(*Table); ok && t != nil {
				ts = append(ts, t)
			}
		}
	}
	return ts
}

// TableCSV returns t as RFC 4180 CSV (header row, then one row per table
// row, "\n" line ends). See WriteTables for the layout.
func TableCSV(t *Table) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	marked := make([]bool, len(t.Columns))
	var head []string
	for j, c := range t.Columns {
		head = append(head, c.header())
		if marked[j] = t.hasMarkers(j); marked[j] {
			head = append(head, c.header()+" marker")
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
				rec = append(rec, c.marker)
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
func TableMarkdown(t *Table) []byte {
	var b bytes.Buffer
	if t.Caption != "" {
		fmt.Fprintf(&b, "**%s.** %s\n\n", mdEscape(t.ID), mdEscape(t.Caption))
	}
	b.WriteByte('|')
	for _, c := range t.Columns {
		b.WriteString(" " + mdEscape(c.header()) + " |")
	}
	b.WriteString("\n|")
	for j := range t.Columns {
		switch t.columnAlign(j) {
		case AlignRight:
			b.WriteString("---:|")
		case AlignCenter:
			b.WriteString(":---:|")
		default:
			b.WriteString(":---|")
		}
	}
	b.WriteByte('\n')
	for _, row := range t.Rows {
		b.WriteByte('|')
		for _, c := range row {
			s := mdEscape(c.display())
			if c.marker != "" {
				s += " " + mdEscape(c.marker)
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

// Float is a float64 that marshals NaN and ±Inf as JSON null; use it for
// values that may legitimately be undefined (e.g. a ratio with no data),
// since WriteJSON rejects non-finite plain float64s.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if !finite(v) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// MarshalJSONBytes returns v as deterministic JSON: indented by two
// spaces, object keys sorted at every level (struct fields included),
// numbers kept exactly as encoding/json writes them, a final newline.
// A non-finite float64 is an error naming where it is; use Float to map
// such values to null.
func MarshalJSONBytes(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		if p := nonFinitePath(reflect.ValueOf(v), "$", 0); p != "" {
			return nil, fmt.Errorf("report: non-finite number at %s (use report.Float for null): %w", p, err)
		}
		return nil, fmt.Errorf("report: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(generic); err != nil { // maps: keys sorted
		return nil, fmt.Errorf("report: %w", err)
	}
	return b.Bytes(), nil
}

// WriteJSON writes v to path as MarshalJSONBytes does, atomically.
func WriteJSON(path string, v any) error {
	b, err := MarshalJSONBytes(v)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b)
}

// nonFinitePath finds the first non-finite float reachable from v, in
// field, index and sorted-key order, for a useful error message.
func nonFinitePath(v reflect.Value, path string, depth int) string {
	if depth > 64 || !v.IsValid() {
		return ""
	}
	if v.CanInterface() {
		if _, ok := v.Interface().(json.Marshaler); ok && v.Kind() != reflect.Pointer {
			return "" // custom marshalers decide for themselves
		}
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return path
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return nonFinitePath(v.Elem(), path, depth+1)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				continue
			}
			if p := nonFinitePath(v.Field(i), path+"."+t.Field(i).Name, depth+1); p != "" {
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p := nonFinitePath(v.Index(i), path+"["+strconv.Itoa(i)+"]", depth+1); p != "" {
				return p
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			if p := nonFinitePath(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k), depth+1); p != "" {
				return p
			}
		}
	}
	return ""
}

// SourceDate returns the date (UTC, "2006-01-02") given by the
// SOURCE_DATE_EPOCH environment variable, the reproducible-builds way to
// put a date into an output; ok is false when it is unset or invalid.
func SourceDate() (date string, ok bool) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return "", false
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil || sec < 0 {
		return "", false
	}
	return time.Unix(sec, 0).UTC().Format("2006-01-02"), true
}
