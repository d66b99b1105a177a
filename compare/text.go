package compare

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteText writes the comparison as benchstat lays out its tables: the
// key fields common to every row first, then one table per measure with
// the baseline column, then each other column's value and its change or
// "~" with (p=… n=…), the method under it, footnotes, and the comparison's
// warnings last.
func (r *Result) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, f := range r.Common {
		fmt.Fprintf(bw, "%s: %s\n", f.Name, f.Value)
	}
	if len(r.Ignored) > 0 {
		fmt.Fprintf(bw, "not matched on: %s\n", strings.Join(r.Ignored, ", "))
	}
	if len(r.Tables) == 0 {
		fmt.Fprintln(bw, "\nno measure has runs to compare")
	}
	for _, t := range r.Tables {
		fmt.Fprintln(bw)
		writeTextTable(bw, r, t)
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(bw)
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(bw, "warning: %s\n", s)
	}
	return bw.Flush()
}

func writeTextTable(w io.Writer, r *Result, t *Table) {
	m := t.Measure
	unit := m.Unit
	// grid[i][k]: text cell k of line i; k = 0 is the row label.
	header1 := []string{""}
	header2 := []string{""}
	spans := []int{1} // cells per group
	for j, label := range r.Columns {
		header1 = append(header1, label)
		header2 = append(header2, unit)
		if j > 0 {
			header2 = append(header2, "vs base")
			spans = append(spans, 2)
		} else {
			spans = append(spans, 1)
		}
	}
	var rows [][]string
	for _, row := range t.Rows {
		line := []string{row.Config}
		for j, c := range row.Cells {
			line = append(line, m.CellText(c)+footnoteMarks(c.Footnotes))
			if j > 0 {
				line = append(line, m.DeltaText(c.Vs))
			}
		}
		rows = append(rows, line)
	}
	ncell := len(header2)
	width := make([]int, ncell)
	for _, line := range append(rows, header2) {
		for k, s := range line {
			width[k] = max(width[k], utf8.RuneCountInString(s))
		}
	}
	// Widen a group's last cell until the group fits its label.
	k := 1
	for g := 1; g < len(spans); g++ {
		gw := groupWidth(width, k, spans[g])
		if need := utf8.RuneCountInString(header1[g]); need > gw {
			width[k+spans[g]-1] += need - gw
		}
		k += spans[g]
	}

	fmt.Fprintln(w, m.Title)
	// Header 1: labels centred over their groups.
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", width[0]))
	k = 1
	for g := 1; g < len(spans); g++ {
		b.WriteString(" │ ")
		b.WriteString(center(header1[g], groupWidth(width, k, spans[g])))
		k += spans[g]
	}
	b.WriteString(" │")
	fmt.Fprintln(w, b.String())
	writeLine(w, header2, width, spans, true)
	for _, line := range rows {
		writeLine(w, line, width, spans, false)
	}
	fmt.Fprintln(w, t.Method)
	for i, f := range t.Footnotes {
		fmt.Fprintf(w, "%s %s\n", footnoteMarks([]int{i + 1}), f)
	}
}

// groupWidth is the width of spans cells from k, two spaces apart.
func groupWidth(width []int, k, span int) int {
	w := 2 * (span - 1)
	for i := k; i < k+span; i++ {
		w += width[i]
	}
	return w
}

// writeLine writes one line of cells: the label left-aligned, headers
// centred between "│" separators, values right-aligned.
func writeLine(w io.Writer, cells []string, width, spans []int, header bool) {
	var b strings.Builder
	b.WriteString(pad(cells[0], width[0], false))
	k := 1
	for g := 1; g < len(spans); g++ {
		if header {
			b.WriteString(" │ ")
		} else {
			b.WriteString("   ")
		}
		for i := k; i < k+spans[g]; i++ {
			if i > k {
				b.WriteString("  ")
			}
			if header {
				b.WriteString(center(cells[i], width[i]))
			} else {
				b.WriteString(pad(cells[i], width[i], true))
			}
		}
		k += spans[g]
	}
	if header {
		b.WriteString(" │")
	}
	fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
}

func pad(s string, w int, right bool) string {
	n := w - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

func center(s string, w int) string {
	n := w - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	return strings.Repeat(" ", n/2) + s + strings.Repeat(" ", n-n/2)
}
