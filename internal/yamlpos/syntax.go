package yamlpos

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/textpos"
)

// This file places yaml.v3's syntax errors. yaml.v3 reports a line only,
// and not always the fault's: it names the line of the construct it was
// in (a mapping, a flow collection, a quoted string), numbered from 0 for
// parser errors and from 1 for scanner errors, and none at all when that
// is the first line. So the fault is placed here instead:
//
//   - A quoted string or a flow collection left open at the end (an
//     unclosed quote, a missing ']' or '}') is placed at its opening
//     quote or bracket (scan.go finds it).
//   - Any other fault is placed at the byte where the document stops
//     being valid YAML: the end of its shortest prefix that yaml.v3
//     rejects with the same message, a prefix cut inside a quoted string
//     or a flow collection being completed first. That is where yaml.v3
//     notices it: exact for a tab in the indentation, a character that
//     cannot start a value, a bad escape, text after a quoted value or
//     an unknown anchor; for a fault of indentation it is the line's
//     first token that cannot belong where it stands, and the message
//     says what to check.
//
// When neither places it (an input beyond maxPlaced bytes, or a prefix
// that does not reproduce the error), the error keeps yaml.v3's line and
// says that the place is approximate.

// maxPlaced bounds the inputs whose faults are searched for by prefixes:
// the search parses prefixes of the input some 2·log2(size) times, which
// is nothing for a configuration file.
const maxPlaced = 64 << 10

// syntaxError positions a yaml.v3 error of data.
func (f *File) syntaxError(data []byte, err error) error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	line, problem := yamlProblem(msg)
	if at, text, ok := placeSyntax(data, problem); ok {
		l, col := lineCol(data, at)
		return textpos.At(textpos.Pos{File: f.Name, Line: l}, col, nil, "not valid YAML: %s", text)
	}
	if line > 0 {
		return textpos.Errorf(textpos.Pos{File: f.Name, Line: line}, nil,
			"not valid YAML: %s (reported by the YAML parser at this line, which may not be the faulty one)", problem)
	}
	return textpos.Errorf(textpos.Pos{File: f.Name, Line: 1}, nil, "not valid YAML: %s (the YAML parser gives no place for it)", problem)
}

// yamlProblem splits a yaml.v3 message into its line (0 when it names
// none) and its problem.
func yamlProblem(msg string) (int, string) {
	msg = strings.TrimPrefix(msg, "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, p, ok := strings.Cut(rest, ": "); ok {
			if line, err := strconv.Atoi(n); err == nil {
				return line, p
			}
		}
	}
	return 0, msg
}

// placeSyntax returns the offset in data of the fault yaml.v3 reports as
// problem, and the message to give; ok is false when it cannot be placed.
func placeSyntax(data []byte, problem string) (at int, text string, ok bool) {
	st := scanYAML(data)
	switch {
	case problem == "found unexpected end of stream" && st.quote != 0:
		return st.quoteAt, "the quoted string that opens here is not closed", true
	case strings.HasPrefix(problem, "did not find expected ',' or ") && len(st.flow) > 0:
		open := st.flow[len(st.flow)-1]
		return open, fmt.Sprintf("the %q that opens here is not closed (%s)", data[open], problem), true
	}
	if len(data) > maxPlaced {
		return 0, "", false
	}
	at = firstFailing(data, problem)
	if at < 0 {
		return 0, "", false
	}
	text = problem
	switch {
	case strings.Contains(problem, "tab character"), problem == "found character that cannot start any token" && at < len(data) && data[at] == '\t':
		if tab := indentTab(data, at); tab >= 0 {
			return tab, "a tab in the indentation (YAML indents with spaces only)", true
		}
	case problem == "found character that cannot start any token" && at < len(data):
		text = fmt.Sprintf("%s: %q (quote the value)", problem, data[at])
	case problem == "found unknown escape character" && at > 0 && data[at-1] == '\\':
		at-- // the backslash
	case problem == "mapping values are not allowed in this context":
		text = problem + ` (a ": " inside a value needs quotes; or this line is indented deeper than the keys of its mapping)`
	case problem == "did not find expected key", strings.HasPrefix(problem, "did not find expected '-'"):
		text = problem + " (check the indentation of this line against the lines above, and for text after a value)"
	case strings.HasPrefix(problem, "unknown anchor "):
		if star := bytes.LastIndexByte(data[:at+1], '*'); star >= 0 {
			at = star
		}
	}
	return at, text, true
}

// firstFailing returns the offset of the last byte of the shortest prefix
// of data that yaml.v3 rejects with problem, or -1. A prefix that holds
// the fault is rejected with it and a shorter one is not, so it searches
// by halves: the line first, then the byte within it.
func firstFailing(data []byte, problem string) int {
	fails := func(n int) bool { return prefixProblem(data[:n]) == problem }
	if !fails(len(data)) {
		return -1
	}
	var ends []int // the end of each line, past its newline
	for start := 0; start < len(data); {
		end := lineEnd(data, start)
		if end < len(data) {
			end++
		}
		ends = append(ends, end)
		start = end
	}
	k := sort.Search(len(ends), func(k int) bool { return fails(ends[k]) })
	start := 0
	if k > 0 {
		start = ends[k-1]
	}
	c := start + 1 + sort.Search(ends[k]-start, func(n int) bool { return fails(start + 1 + n) })
	return c - 1
}

// prefixProblem returns the problem yaml.v3 finds in prefix p, "" for
// none, after closing the quoted string and the flow collections p leaves
// open, so that a cut inside them is no error of its own. A prefix that
// ends inside an escape has none.
func prefixProblem(p []byte) string {
	st := scanYAML(p)
	if st.escape {
		return ""
	}
	doc := append([]byte(nil), p...)
	if st.quote != 0 {
		doc = append(doc, st.quote)
	}
	for k := len(st.flow) - 1; k >= 0; k-- {
		if p[st.flow[k]] == '[' {
			doc = append(doc, ']')
		} else {
			doc = append(doc, '}')
		}
	}
	doc = append(doc, '\n')
	dec := yaml.NewDecoder(bytes.NewReader(doc))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return ""
		}
		if err != nil {
			msg := err.Error()
			var te *yaml.TypeError
			if errors.As(err, &te) && len(te.Errors) > 0 {
				msg = te.Errors[0]
			}
			_, problem := yamlProblem(msg)
			return problem
		}
	}
}

// indentTab returns the offset of the first tab in the indentation of the
// line holding offset at, or -1.
func indentTab(data []byte, at int) int {
	i := bytes.LastIndexByte(data[:min(at, len(data))], '\n') + 1
	for ; i < len(data) && isSpace(data[i]); i++ {
		if data[i] == '\t' {
			return i
		}
	}
	return -1
}

// lineCol returns the 1-based line and byte column of offset at.
func lineCol(data []byte, at int) (line, col int) {
	at = min(at, len(data))
	line = bytes.Count(data[:at], []byte("\n")) + 1
	return line, at - bytes.LastIndexByte(data[:at], '\n')
}
