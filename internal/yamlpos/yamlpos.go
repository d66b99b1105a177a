// Package yamlpos reads small YAML configuration files (a run's run.yaml,
// a check rules file) as yaml.v3 node trees and turns every problem into a
// textpos.ParseError at the node it is about: syntax errors at their fault
// (syntax.go),
// a second document, duplicate or non-scalar keys, a value that is not a
// mapping, and unknown keys with the likely intended spelling ("did you
// mean design?"), so that a typo never passes silently.
//
// It reads nodes rather than decoding into structs because yaml.v3's
// decoder loses positions and ignores duplicate and unknown keys.
package yamlpos

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/textpos"
)

// File positions the errors of one YAML file.
type File struct {
	// Name is the file name used in positions.
	Name string
	// Columns adds the node's 1-based column to positions
	// ("file:line:col: reason" instead of "file:line: reason").
	Columns bool
	// src is the text Decode read, for the positions of keys.
	src []byte
}

// Errorf returns a ParseError at node n (line 1 when n is nil or has no
// line).
func (f *File) Errorf(n *yaml.Node, format string, args ...any) *textpos.ParseError {
	line, col := 1, 0
	if n != nil && n.Line > 0 {
		line = n.Line
		if f.Columns {
			col = f.byteColumn(n.Line, n.Column)
		}
	}
	return textpos.At(textpos.Pos{File: f.Name, Line: line}, col, nil, format, args...)
}

// Decode parses data as exactly one YAML document and returns its root
// node, aliases resolved; nil without an error when data holds no document.
// what names the file in the error about a second document ("run.yaml
// holds exactly one").
func (f *File) Decode(data []byte, what string) (*yaml.Node, error) {
	f.src = data
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, f.syntaxError(data, err)
	}
	var second yaml.Node
	if err := dec.Decode(&second); err == nil {
		return nil, f.Errorf(&second, "a second YAML document: %s holds exactly one", what)
	} else if !errors.Is(err, io.EOF) {
		return nil, f.syntaxError(data, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return Resolve(doc.Content[0]), nil
}

// Entry is one key of a mapping with its value, aliases resolved.
type Entry struct {
	Name       string // the key's text
	Key, Value *yaml.Node
}

// Entries lists a mapping's keys in document order, rejecting duplicates
// (yaml.v3 does not when decoding into a Node) and non-scalar keys. path
// names the mapping in messages ("engine", "" for the top level).
func (f *File) Entries(n *yaml.Node, path string) ([]Entry, error) {
	out := make([]Entry, 0, len(n.Content)/2)
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := f.key(n.Content[i])
		if k.Kind != yaml.ScalarNode {
			prefix := ""
			if path != "" {
				prefix = path + ": "
			}
			return nil, f.Errorf(k, "%swant a plain key, got %s", prefix, Describe(k))
		}
		if line, dup := first[k.Value]; dup {
			return nil, f.Errorf(k, "%s: duplicate key (first at line %d)", Join(path, k.Value), line)
		}
		first[k.Value] = k.Line
		out = append(out, Entry{Name: k.Value, Key: k, Value: Resolve(n.Content[i+1])})
	}
	return out, nil
}

// key returns mapping key raw, resolved, placed at its own text: an alias
// key at the alias, not at the node it names, and a key with an anchor or
// a tag (&a name, !!str name) at the name, past them.
func (f *File) key(raw *yaml.Node) *yaml.Node {
	k := Resolve(raw)
	line, col := raw.Line, raw.Column
	if raw.Kind != yaml.AliasNode {
		line, col = f.pastProperties(line, col)
	}
	if line == k.Line && col == k.Column {
		return k
	}
	c := *k
	c.Line, c.Column = line, col
	return &c
}

// byteColumn turns yaml.v3's column of a position, counted in characters,
// into textpos' 1-based byte column, using the text Decode read.
func (f *File) byteColumn(line, col int) int {
	i := 0
	for l := 1; l < line && i < len(f.src); l++ {
		i = lineEnd(f.src, i) + 1
	}
	start := i
	for c := 1; c < col && i < len(f.src) && f.src[i] != '\n'; c++ {
		_, n := utf8.DecodeRune(f.src[i:])
		i += n
	}
	if i-start < col-1 { // past the text Decode read: keep yaml.v3's
		return col
	}
	return i - start + 1
}

// pastProperties returns the position of the first token at or after line
// and col (1-based; yaml.v3 counts columns in characters) that is not an
// anchor (&a) or a tag (!t), on the same line.
func (f *File) pastProperties(line, col int) (int, int) {
	i := 0
	for l := 1; l < line && i < len(f.src); l++ {
		i = lineEnd(f.src, i) + 1
	}
	for c := 1; c < col && i < len(f.src) && f.src[i] != '\n'; c++ {
		_, n := utf8.DecodeRune(f.src[i:])
		i += n
	}
	skipped := 0
	for i < len(f.src) && (f.src[i] == '&' || f.src[i] == '!') {
		for i < len(f.src) && !isSpace(f.src[i]) && f.src[i] != '\n' {
			_, n := utf8.DecodeRune(f.src[i:])
			i += n
			skipped++
		}
		for i < len(f.src) && isSpace(f.src[i]) {
			i++
			skipped++
		}
	}
	if i >= len(f.src) || f.src[i] == '\n' {
		return line, col // the key is on another line: keep its properties' place
	}
	return line, col + skipped
}

// Mapping is Entries for a value that must be a mapping: any other node is
// an error naming path.
func (f *File) Mapping(n *yaml.Node, path string) ([]Entry, error) {
	if n.Kind != yaml.MappingNode {
		return nil, f.Errorf(n, "%s: want a mapping of keys, got %s", path, Describe(n))
	}
	return f.Entries(n, path)
}

// UnknownKey is the error for a key of e's mapping that is not among known:
// it names the section (empty at the top level), the known key the typo
// most likely meant, and every known key.
func (f *File) UnknownKey(e Entry, section string, known []string) error {
	hint := ""
	if s := Closest(e.Name, known); s != "" {
		hint = fmt.Sprintf(" (did you mean %s?)", s)
	}
	where := ""
	if section != "" {
		where = " in " + section
	}
	return f.Errorf(e.Key, "unknown key %q%s%s; known keys: %s", e.Name, where, hint, strings.Join(known, ", "))
}

// Closest returns the known key within edit distance 2 of key, if any: the
// likely intended spelling of a typo.
func Closest(key string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Join appends key to a dotted path ("engine" + "name" is "engine.name").
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Resolve follows an alias (*anchor) to the node it names; a missing node
// is a null scalar.
func Resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	return n
}

// IsNull reports whether n is a null scalar (nothing, ~ or null).
func IsNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// Describe names a node for an error message: the scalar as written, or its
// kind.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch {
		case IsNull(n):
			return "nothing"
		case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
			// Say so: a quoted 0.03 looks like a number but is a string.
			return "the quoted string " + strconv.Quote(n.Value)
		case n.ShortTag() == "!!str":
			return strconv.Quote(n.Value)
		}
		return n.Value
	}
	return "an unexpected YAML node"
}
