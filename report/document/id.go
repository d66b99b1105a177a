package document

import "strings"

// ChartID returns the DOM ID of the chart of a figure with the given ID:
// "c_" followed by the ID with every character other than an ASCII letter,
// digit or '_' replaced by '_'. The result is a valid JavaScript
// identifier, HTML id and CSS selector; the prefix keeps it from starting
// with a digit or being a reserved word.
func ChartID(figureID string) string {
	var b strings.Builder
	b.WriteString("c_")
	for _, r := range figureID {
		if isIdentRune(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func isIdentRune(r rune) bool {
	return r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
}

// validSectionID reports whether s is a usable HTML anchor.
func validSectionID(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !isIdentRune(r) && r != '-' {
			return false
		}
	}
	return true
}

// validTableID reports whether s is a safe file stem on every platform.
func validTableID(s string) bool {
	if s == "" || s[0] == '.' {
		return false
	}
	for _, r := range s {
		if !isIdentRune(r) && r != '-' && r != '.' {
			return false
		}
	}
	return true
}
