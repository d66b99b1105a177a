package yamlpos

import (
	"errors"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/textpos"
)

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"design", "desing", 2}, {"kitten", "sitting", 3}, {"run", "", 3}, {"", "abc", 3}} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	known := []string{"name", "where", "dataset", "compare", "require"}
	for key, want := range map[string]string{
		"requre":   "require",
		"wehre":    "where",
		"nmae":     "name",
		"compair":  "compare",
		"baseline": "", // nothing within two edits
		"":         "",
	} {
		if got := Closest(key, known); got != want {
			t.Errorf("Closest(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestErrors checks the message and position of each kind of error, with
// and without columns.
func TestErrors(t *testing.T) {
	mapping := func(f *File, src string) error {
		root, err := f.Decode([]byte(src), "x.yaml")
		if err != nil {
			return err
		}
		es, err := f.Mapping(root, "top")
		if err != nil {
			return err
		}
		for _, e := range es {
			if e.Name != "name" {
				return f.UnknownKey(e, "top", []string{"name", "kind"})
			}
		}
		return nil
	}
	for _, tc := range []struct {
		name, src string
		columns   bool
		want      string
	}{
		{"syntax", "a: [1,\nb: 2\n", true, "x.yaml:1:4: not valid YAML: the '[' that opens here is not closed (did not find expected ',' or ']')"},
		{"second document", "name: a\n---\nname: b\n", false, "x.yaml:2: a second YAML document: x.yaml holds exactly one"},
		{"duplicate key", "name: a\nkind: b\nname: c\n", true, "x.yaml:3:1: top.name: duplicate key (first at line 1)"},
		{"non-scalar key", "? [a]\n: 1\n", true, "x.yaml:1:3: top: want a plain key, got a list"},
		{"not a mapping", "- a\n- b\n", true, "x.yaml:1:1: top: want a mapping of keys, got a list"},
		{"unknown key, columns", "name: a\n  # comment\nkidn: b\n", true, `x.yaml:3:1: unknown key "kidn" in top (did you mean kind?); known keys: name, kind`},
		{"unknown key, lines", "name: a\nzzz: b\n", false, `x.yaml:2: unknown key "zzz" in top; known keys: name, kind`},
	} {
		f := &File{Name: "x.yaml", Columns: tc.columns}
		err := mapping(f, tc.src)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v\nwant %s", tc.name, err, tc.want)
			continue
		}
		var pe *textpos.ParseError
		if !errors.As(err, &pe) || pe.Pos.File != "x.yaml" || pe.Pos.Line < 1 {
			t.Errorf("%s: %v (%T) is not a positioned ParseError", tc.name, err, err)
		}
	}
}

func TestDecodeEmptyAndAliases(t *testing.T) {
	f := &File{Name: "x.yaml"}
	for _, src := range []string{"", "# only a comment\n", "---\n"} {
		root, err := f.Decode([]byte(src), "x.yaml")
		if err != nil || (root != nil && !IsNull(root)) {
			t.Errorf("Decode(%q) = %v, %v; want no document", src, root, err)
		}
	}
	root, err := f.Decode([]byte("a: &x {k: 1}\nb: *x\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	es, err := f.Entries(root, "")
	if err != nil || len(es) != 2 || es[1].Value.Kind != yaml.MappingNode {
		t.Errorf("the alias b was not resolved to its mapping: %+v, %v", es, err)
	}
}

func TestDescribe(t *testing.T) {
	root, err := (&File{}).Decode([]byte(`[~, "0.03", abc, 12, {a: 1}, [1]]`), "x")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"nothing", `the quoted string "0.03"`, `"abc"`, "12", "a mapping", "a list"}
	for i, n := range root.Content {
		if got := Describe(n); got != want[i] {
			t.Errorf("Describe(item %d) = %s, want %s", i, got, want[i])
		}
	}
}

// TestDuplicateKeyColumn checks that a duplicate key is placed at the
// second key's text: not at an anchor or tag before it, and not at the
// node an alias key names.
func TestDuplicateKeyColumn(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"name: a\nname: c\n", "2:1: name: duplicate key (first at line 1)"},
		{"{name: a, name: c}\n", "1:11: name: duplicate key (first at line 1)"},
		{"name: a\n? name\n: c\n", "2:3: name: duplicate key (first at line 1)"},
		{"name: a\n&x name: c\n", "2:4: name: duplicate key (first at line 1)"},
		{"name: a\n!!str  name: c\n", "2:8: name: duplicate key (first at line 1)"},
		{"name: a\n!!str &x name: c\n", "2:10: name: duplicate key (first at line 1)"},
		{"&k name: a\n*k : c\n", "2:1: name: duplicate key (first at line 1)"},
		{"x: &k name\nname: a\n*k : c\n", "3:1: name: duplicate key (first at line 2)"},
		{"a:\n  b: 1\n  b:\n    c: 2\n", "3:3: a.b: duplicate key (first at line 2)"},
		// Columns count bytes, as textpos' do: é is two.
		{"{é: 1, é: 2}\n", "1:9: é: duplicate key (first at line 1)"},
		{"{é: 1, &a é: 2}\n", "1:12: é: duplicate key (first at line 1)"},
	} {
		f := &File{Name: "x.yaml", Columns: true}
		root, err := f.Decode([]byte(c.src), "x.yaml")
		if err != nil {
			t.Fatal(err)
		}
		err = dupCheck(f, root, "")
		if err == nil || err.Error() != "x.yaml:"+c.want {
			t.Errorf("%q:\n got %v\nwant x.yaml:%s", c.src, err, c.want)
		}
	}
}

// dupCheck runs Entries over every mapping under n.
func dupCheck(f *File, n *yaml.Node, path string) error {
	es, err := f.Entries(n, path)
	if err != nil {
		return err
	}
	for _, e := range es {
		if e.Value.Kind == yaml.MappingNode {
			if err := dupCheck(f, e.Value, Join(path, e.Name)); err != nil {
				return err
			}
		}
	}
	return nil
}
