package document

import (
	"math"
	"strconv"

	"github.com/outlast-dev/outlast/internal/jsonnum"
)

type cellKind uint8

const (
	cellMissing cellKind = iota
	cellText
	cellNum
)

// Cell is one table cell: a string, a number shown with a fixed number of
// decimals, or missing; any of them may carry a marker such as the paper's
// ∗ for persistently degraded runs. The zero Cell is missing.
type Cell struct {
	kind   cellKind
	text   string
	num    float64
	prec   int
	marker string
	// numLike marks text that reads as a number (a Range), aligned as one.
	numLike bool
	// short is what the page shows of a text cell (Abbrev), "" for all of it.
	short string
}

// MissingText is how a missing cell is shown in HTML and Markdown.
const MissingText = "–"

// Text returns a string cell.
func Text(s string) Cell { return Cell{kind: cellText, text: s} }

// Num returns a number cell shown with prec decimals. prec < 0 means the
// shortest representation of v to jsonnum.SignificantDigits significant
// digits, so that the last bits of a computation, which may differ between
// CPUs, are never shown. NaN and ±Inf give a missing cell.
func Num(v float64, prec int) Cell {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Missing()
	}
	return Cell{kind: cellNum, num: v, prec: prec}
}

// Int returns an integer number cell.
func Int(v int64) Cell { return Cell{kind: cellNum, num: float64(v), prec: 0} }

// Range returns a text cell "lo–hi" with prec decimals, or a single number
// when both ends print the same; a non-finite end gives a missing cell.
func Range(lo, hi float64, prec int) Cell {
	a, b := Num(lo, prec), Num(hi, prec)
	if a.kind == cellMissing || b.kind == cellMissing {
		return Missing()
	}
	if a.String() == b.String() {
		return a
	}
	return Cell{kind: cellText, text: a.String() + "–" + b.String(), numLike: true}
}

// Missing returns a missing cell, shown as MissingText.
func Missing() Cell { return Cell{} }

// Mark returns a copy of c carrying marker m.
func (c Cell) Mark(m string) Cell {
	c.marker = m
	return c
}

// Abbrev returns a copy of c that the page shows as short, with the whole
// text on hover; CSV and Markdown keep the whole text. A short equal to
// the text, or empty, abbreviates nothing.
func (c Cell) Abbrev(short string) Cell {
	if short != c.String() {
		c.short = short
	}
	return c
}

// Short returns what the page shows of c: its abbreviation (Abbrev), or
// Display.
func (c Cell) Short() string {
	if c.short != "" {
		return c.short
	}
	return c.Display()
}

// Marker returns the cell's marker, "" if none.
func (c Cell) Marker() string { return c.marker }

// IsMissing reports whether the cell is missing.
func (c Cell) IsMissing() bool { return c.kind == cellMissing }

// IsNum reports whether the cell holds a number.
func (c Cell) IsNum() bool { return c.kind == cellNum }

// Value returns the number of a number cell and NaN otherwise.
func (c Cell) Value() float64 {
	if c.kind != cellNum {
		return math.NaN()
	}
	return c.num
}

// String returns the cell's value as displayed, without marker: "" for a
// missing cell.
func (c Cell) String() string {
	switch c.kind {
	case cellText:
		return c.text
	case cellNum:
		if c.prec < 0 {
			return trimNegZero(strconv.FormatFloat(jsonnum.Round(c.num), 'g', -1, 64))
		}
		return trimNegZero(strconv.FormatFloat(c.num, 'f', c.prec, 64))
	}
	return ""
}

// Display returns the cell as shown in HTML and Markdown, without marker:
// String, or MissingText for a missing cell.
func (c Cell) Display() string {
	if c.kind == cellMissing {
		return MissingText
	}
	return c.String()
}

// trimNegZero turns "-0", "-0.00" into "0", "0.00": rounding a tiny
// negative value should not print a sign.
func trimNegZero(s string) string {
	if len(s) < 2 || s[0] != '-' {
		return s
	}
	for _, r := range s[1:] {
		if r != '0' && r != '.' {
			return s
		}
	}
	return s[1:]
}
