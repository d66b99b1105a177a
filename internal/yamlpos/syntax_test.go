package yamlpos

import (
	"fmt"
	"strings"
	"testing"
)

// TestSyntaxErrors checks where the classic YAML faults are placed: at
// the fault, line and column, not at the line yaml.v3 names (the line of
// the construct it was in, or the next line, or none).
func TestSyntaxErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"unclosed double quote, first line", "a: \"abc\nb: 2\n",
			"1:4: not valid YAML: the quoted string that opens here is not closed"},
		{"unclosed single quote", "a: 1\nb: 'abc\nc: 2\nd: 3\n",
			"2:4: not valid YAML: the quoted string that opens here is not closed"},
		{"unclosed quote after a multi-line one", "a: \"x\n  y\"\nb: it's\nc: \"z\n",
			"4:4: not valid YAML: the quoted string that opens here is not closed"},
		{"unclosed quote in a list", "a:\n  - \"x\"\n  - 'y\n",
			"3:5: not valid YAML: the quoted string that opens here is not closed"},
		{"unclosed flow sequence", "a: [1,\nb: 2\n",
			`1:4: not valid YAML: the '[' that opens here is not closed (did not find expected ',' or ']')`},
		{"unclosed flow mapping", "format: x\nengine: {name: vllm\nlabels: x\n",
			`2:9: not valid YAML: the '{' that opens here is not closed (did not find expected ',' or '}')`},
		{"flow closed by the other bracket", "x: 1\ny: [a, b}\n",
			`2:9: not valid YAML: did not find expected ',' or ']'`},
		{"tab as indentation", "a:\n\tb: 1\n",
			"2:1: not valid YAML: a tab in the indentation (YAML indents with spaces only)"},
		{"tab after a value", "a: 1\n\tb: 1\n",
			"2:1: not valid YAML: a tab in the indentation (YAML indents with spaces only)"},
		{"tab after spaces", "a:\n  b: 1\n  \tc: 2\n",
			"3:3: not valid YAML: a tab in the indentation (YAML indents with spaces only)"},
		{"indented less than its mapping", "a:\n  b: 1\n c: 2\n",
			"3:2: not valid YAML: did not find expected key (check the indentation of this line against the lines above, and for text after a value)"},
		{"indented deeper than its mapping", "a:\n  b: 1\n   c: 2\n",
			`3:5: not valid YAML: mapping values are not allowed in this context (a ": " inside a value needs quotes; or this line is indented deeper than the keys of its mapping)`},
		{"a second colon in a value, first line", "a: b: c\n",
			`1:5: not valid YAML: mapping values are not allowed in this context (a ": " inside a value needs quotes; or this line is indented deeper than the keys of its mapping)`},
		{"text after a quoted value", "x: 1\na: \"x\" y\n",
			"2:8: not valid YAML: did not find expected key (check the indentation of this line against the lines above, and for text after a value)"},
		{"a list item among keys", "rules:\n  - name: a\n    where: x\n   require: y\n",
			"4:4: not valid YAML: did not find expected '-' indicator (check the indentation of this line against the lines above, and for text after a value)"},
		{"a closing bracket too many", "x: 1\na: [1, 2]]\n",
			"2:10: not valid YAML: did not find expected key (check the indentation of this line against the lines above, and for text after a value)"},
		{"reserved character", "x: 1\na: @x\n",
			`2:4: not valid YAML: found character that cannot start any token: '@' (quote the value)`},
		{"bad escape", "x: 1\na: \"ab\\qc\"\n",
			"2:7: not valid YAML: found unknown escape character"},
		{"unknown anchor", "x: 1\na: *nope\n",
			"2:4: not valid YAML: unknown anchor 'nope' referenced"},
		{"block scalar then a bad line", "a: |\n  x: \"\n  'y\nb: \"z\n",
			"4:4: not valid YAML: the quoted string that opens here is not closed"},
		{"second document", "a: 1\n---\nb: [1\n",
			`3:4: not valid YAML: the '[' that opens here is not closed (did not find expected ',' or ']')`},
	} {
		f := &File{Name: "x.yaml", Columns: true}
		_, err := f.Decode([]byte(c.src), "x.yaml")
		if err == nil || err.Error() != "x.yaml:"+c.want {
			t.Errorf("%s: %q\n got %v\nwant x.yaml:%s", c.name, c.src, err, c.want)
		}
	}
}

// TestSyntaxErrorUnplaced checks the message of a fault that cannot be
// placed: yaml.v3's line, said to be approximate.
func TestSyntaxErrorUnplaced(t *testing.T) {
	src := "x: 1\na: b: c\n" + strings.Repeat("# pad\n", maxPlaced/6+1)
	_, err := (&File{Name: "x.yaml"}).Decode([]byte(src), "x.yaml")
	want := "x.yaml:2: not valid YAML: mapping values are not allowed in this context (reported by the YAML parser at this line, which may not be the faulty one)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// FuzzSyntaxError checks that every YAML error is placed inside the
// input, without a panic.
func FuzzSyntaxError(f *testing.F) {
	for _, s := range []string{"a: \"abc\nb: 2\n", "a:\n\tb: 1\n", "a: [1,\nb: {c: 'd''\n", "a: |\n  x\n y: 1\n", "- a\nb: 1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 2048 {
			return
		}
		_, err := (&File{Name: "x.yaml", Columns: true}).Decode(data, "x.yaml")
		if err == nil {
			return
		}
		var line, col int
		if _, e := fmt.Sscanf(err.Error(), "x.yaml:%d:%d:", &line, &col); e == nil {
			if lines := strings.Count(string(data), "\n") + 1; line < 1 || line > lines || col < 1 {
				t.Fatalf("%q: %v: outside the input", data, err)
			}
		}
	})
}
