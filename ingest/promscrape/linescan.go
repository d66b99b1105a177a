package promscrape

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/outlast-dev/outlast/ingest/internal/promseries"
)

// This file is the splitter's line scan. It looks only at what decides where
// a scrape ends: "# scrape" lines, the names of HELP and TYPE lines, and a
// sample's trailing timestamp. Everything else, including whether a line is
// well formed at all, is left to expfmt.

// Comment kinds returned by scanComment.
const (
	commentPlain = iota
	commentHelp
	commentType
	commentScrape
)

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func skipBlank(b []byte, i int) int {
	for i < len(b) && isBlank(b[i]) {
		i++
	}
	return i
}

func skipToken(b []byte, i int) int {
	for i < len(b) && !isBlank(b[i]) {
		i++
	}
	return i
}

func isNameChar(c byte) bool { return nameChars[c] }

// nameChars holds isNameChar of every byte: one load instead of five
// comparisons, in loops over every byte of every metric name.
var nameChars = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ':'
	}
	return t
}()

// comment is a scanned comment line.
type comment struct {
	kind int
	name []byte // HELP/TYPE: the metric name; points into the line
	sec  int64  // scrape: Unix time
	nsec int64
	col  int // scrape: the 1-based column of the time
}

// scanComment scans a line whose first non-blank byte, at i, is '#'. A
// HELP or TYPE line counts only when expfmt would record it, that is when
// text follows the name, so the splitter and expfmt agree on repeats. Only
// a "# scrape" line can be an error here; it returns the 1-based column.
func scanComment(b []byte, i int, c *comment) (int, error) {
	i = skipBlank(b, i+1)
	ke := skipToken(b, i)
	c.kind = commentPlain
	switch string(b[i:ke]) {
	case "HELP", "TYPE":
		ns := skipBlank(b, ke)
		ne := ns
		if ns < len(b) && b[ns] == '"' { // a quoted UTF-8 name
			ne = bytes.IndexByte(b[ns+1:], '"')
			if ne < 0 {
				return 0, nil // expfmt rejects it
			}
			ne += ns + 2
			c.name = b[ns+1 : ne-1]
		} else {
			for ne < len(b) && isNameChar(b[ne]) {
				ne++
			}
			c.name = b[ns:ne]
		}
		if ne == ns || ne == len(b) || !isBlank(b[ne]) || skipBlank(b, ne) == len(b) {
			return 0, nil
		}
		c.kind = commentHelp
		if b[i] == 'T' {
			c.kind = commentType
		}
	case "scrape":
		c.kind = commentScrape
		vs := skipBlank(b, ke)
		ve := skipToken(b, vs)
		sec, nsec, ok := promseries.ParseUnix(bytes.TrimPrefix(b[vs:ve], []byte("ts=")))
		if !ok {
			return vs + 1, fmt.Errorf("invalid scrape time %q: want Unix seconds", b[vs:ve])
		}
		if e := skipBlank(b, ve); e != len(b) {
			return e + 1, errors.New("unexpected text after scrape time")
		}
		c.sec, c.nsec, c.col = sec, nsec, vs+1
	}
	return 0, nil
}
