package promscrape

import (
	"io"
	"strconv"
	"strings"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// This file finds the column of an expfmt error, which names the line and
// the problem but not the byte. expfmt reads its input a byte at a time
// and stops at the byte where it finds the fault; fed one byte per Read,
// it has read exactly up to there, which gives that byte. Its message then
// says how the fault relates to it: the byte itself (a '1' where '=' was
// expected), the token just read (a value that is no number, a reserved
// label name), or the opening quote of a string (an unterminated one, a
// label value that is not UTF-8). The columns are those TimedReader's
// scanner gives for the same fault (TestSameColumns).

// expfmtStop returns the offset in text of the byte at which expfmt
// stopped with an error, len(text) if it ran to the end. It parses text
// again, so it is for errors only.
func expfmtStop(text []byte) int {
	r := &byteReader{b: text}
	p := expfmt.NewTextParser(model.UTF8Validation)
	if _, err := p.TextToMetricFamilies(r); err == nil {
		return len(text)
	}
	return r.n - 1
}

// byteReader gives its bytes one per Read, so that the bufio.Reader
// expfmt reads through holds none beyond the byte it is at.
type byteReader struct {
	b []byte
	n int
}

func (r *byteReader) Read(p []byte) (int, error) {
	if r.n >= len(r.b) {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.b[r.n]
	r.n++
	return 1, nil
}

// expfmtColumn returns the 1-based column of the fault expfmt reports with
// msg on line b, where it stopped at offset s (len(b): at the newline), or
// 0 when the message is not one it knows.
func expfmtColumn(b []byte, s int, msg string) int {
	if s < 0 || s > len(b) {
		return 0
	}
	at := -1
	switch {
	case strings.HasPrefix(msg, "invalid escape sequence "):
		at = s - 1 // the backslash
	case strings.HasSuffix(msg, " contains unescaped new-line"):
		at = openQuote(b, s) // a quoted string not closed on its line
	case strings.HasPrefix(msg, "invalid label value "),
		strings.HasPrefix(msg, "expected float as value for '"): // s: the value's closing quote
		at = openQuote(b, s)
	case msg == "invalid metric name": // no name before the value or the label set
		at = skipBlank(b, 0)
	case strings.HasPrefix(msg, "invalid label name for metric "), // s: a byte that cannot start one
		strings.HasPrefix(msg, "expected '=' after label name"),
		strings.HasPrefix(msg, `expected '"' at start of label value`),
		strings.HasPrefix(msg, "unexpected end of label value "),
		strings.HasPrefix(msg, "unexpected end of metric name "),
		msg == "invalid metric name in comment":
		at = s
	case strings.HasPrefix(msg, "invalid label name "), // s: just past the name, or the blanks and '=' after it
		strings.HasPrefix(msg, "label name "), // reserved
		strings.HasPrefix(msg, "duplicate label names "),
		strings.HasPrefix(msg, "multiple metric names "),
		strings.HasPrefix(msg, "invalid metric name "):
		at = tokenBefore(b, s)
	case strings.HasPrefix(msg, "expected float as value, got "),
		strings.HasPrefix(msg, "expected integer as timestamp, got "),
		strings.HasPrefix(msg, "unknown metric type "):
		// The token, quoted in the message, ends at s.
		if tok, ok := quotedTail(msg); ok {
			at = s - len(tok)
		}
	case strings.HasPrefix(msg, "spurious string after timestamp: "):
		// The rest of the line, from the blank after the timestamp.
		if tok, ok := quotedTail(msg); ok && s-len(tok) >= 0 {
			at = skipBlank(b, s-len(tok))
		}
	case strings.HasPrefix(msg, "second HELP line "), strings.HasPrefix(msg, "second TYPE line "):
		at = skipBlank(b, skipBlank(b, 0)+1) // the keyword
	}
	if at < 0 || at > len(b) {
		return 0
	}
	return at + 1
}

// quotedTail returns the Go-quoted string that ends msg, unquoted.
func quotedTail(msg string) (string, bool) {
	i := strings.IndexByte(msg, '"')
	if i < 0 {
		return "", false
	}
	tok, err := strconv.Unquote(msg[i:])
	return tok, err == nil
}

// openQuote returns the offset of the quote that opens the string which
// runs to b[s] (exclusive): the last quote before s that no backslash
// escapes, since an unescaped one inside would have closed the string.
func openQuote(b []byte, s int) int {
	for k := s - 1; k >= 0; k-- {
		if b[k] != '"' {
			continue
		}
		n := 0
		for k-n-1 >= 0 && b[k-n-1] == '\\' {
			n++
		}
		if n%2 == 0 {
			return k
		}
	}
	return -1
}

// tokenBefore returns the start of the name that ends at b[s] or before
// blanks there: bare, or quoted.
func tokenBefore(b []byte, s int) int {
	k := s
	for k > 0 && isBlank(b[k-1]) {
		k--
	}
	if k > 0 && b[k-1] == '"' {
		return openQuote(b, k-1)
	}
	for k > 0 && isNameChar(b[k-1]) {
		k--
	}
	return k
}
