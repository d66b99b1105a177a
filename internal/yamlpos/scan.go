package yamlpos

// This file is a rough YAML tokenizer that knows just enough to say, at
// the end of a document or of a prefix of one, whether a quoted string or
// a flow collection is still open and where it opened: what syntax.go
// needs to place the faults yaml.v3 reports only by a line, and to
// complete a prefix cut in the middle of such a token so that the cut
// itself is no error.

// scanState is what scanYAML found.
type scanState struct {
	quote    byte  // '"' or '\'' while a quoted string is open, else 0
	quoteAt  int   // the offset of its opening quote
	escape   bool  // the input ends after a backslash in a double-quoted string
	flow     []int // the offsets of the '[' and '{' still open, innermost last
	mismatch int   // the offset of the first ']' or '}' closing the other kind, -1: none
}

// scanYAML walks data: comments, quoted strings (their escapes, and
// single quotes doubled), flow collections and block scalars (|, >),
// whose lines it skips. A quote or bracket opens a token only where a
// value may start (after "key: ", "- ", "? ", '[', '{', ',', an anchor or
// a tag, or at a line's indentation), not inside a plain value such as
// it's or x[1].
func scanYAML(data []byte) scanState {
	st := scanState{mismatch: -1}
	expect := true    // a value may start here
	block := -1       // inside a block scalar: the indentation of its parent line
	indent := 0       // the current line's indentation
	lineStart := true // at the start of a line (before its indentation)
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch st.quote {
		case '"':
			switch c {
			case '\\':
				if i+1 == len(data) {
					st.escape = true
				}
				i++
			case '"':
				st.quote = 0
				expect = false
			}
			continue
		case '\'':
			if c == '\'' {
				if i+1 < len(data) && data[i+1] == '\'' {
					i++ // a doubled quote stands for one
				} else {
					st.quote = 0
					expect = false
				}
			}
			continue
		}
		if lineStart {
			// Measure the indentation; in a block scalar, skip the line
			// while it is blank or indented deeper than the parent.
			j := i
			for j < len(data) && data[j] == ' ' {
				j++
			}
			indent = j - i
			rest := j
			for rest < len(data) && (data[rest] == ' ' || data[rest] == '\t') {
				rest++
			}
			blank := rest == len(data) || data[rest] == '\n' || data[rest] == '\r'
			if block >= 0 && (blank || indent > block) {
				i = lineEnd(data, i) // the newline, or the end
				continue
			}
			block = -1
			lineStart = false
			if len(st.flow) == 0 {
				expect = true
			}
		}
		switch c {
		case '\n':
			lineStart = true
			if len(st.flow) > 0 {
				expect = true // a flow entry may continue on the next line
			}
		case ' ', '\t', '\r':
		case '#':
			if i == 0 || isSpace(data[i-1]) {
				i = lineEnd(data, i) - 1 // the newline is handled next
			} else {
				expect = false
			}
		case '"', '\'':
			if expect {
				st.quote, st.quoteAt = c, i
			}
		case '[', '{':
			if expect || len(st.flow) > 0 {
				st.flow = append(st.flow, i)
				expect = true
			}
		case ']', '}':
			if n := len(st.flow); n > 0 {
				open := data[st.flow[n-1]]
				if (open == '[') != (c == ']') && st.mismatch < 0 {
					st.mismatch = i
				}
				st.flow = st.flow[:n-1]
				expect = false
			}
		case ',':
			if len(st.flow) > 0 {
				expect = true
			}
		case ':', '-', '?':
			next := byte(' ')
			if i+1 < len(data) {
				next = data[i+1]
			}
			switch {
			case isSpace(next) || next == '\n' || next == '\r':
				expect = c == ':' || expect
			case c == ':' && len(st.flow) > 0 && (next == ',' || next == ']' || next == '}'):
				expect = true
			default:
				expect = false
			}
		case '|', '>':
			if expect && len(st.flow) == 0 {
				block = indent
				i = lineEnd(data, i) - 1
			} else {
				expect = false
			}
		case '&', '!':
			if expect { // an anchor or a tag: the value follows it
				for i+1 < len(data) && !isSpace(data[i+1]) && data[i+1] != '\n' {
					i++
				}
			}
		default:
			expect = false
		}
	}
	return st
}

// lineEnd returns the offset of the newline ending the line at i, or
// len(data).
func lineEnd(data []byte, i int) int {
	for i < len(data) && data[i] != '\n' {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }
