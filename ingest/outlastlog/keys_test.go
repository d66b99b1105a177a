package outlastlog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"
)

// TestKeyTable ties the two spellings of the known keys together: every
// constant has a distinct name in keyNames, keyIndex maps the name back to
// the constant and knows no other name (its cases, read from keys.go, are
// exactly keyNames), and fastTurn's uint32 bit set has room for every key.
func TestKeyTable(t *testing.T) {
	if numKeys > 32 {
		t.Fatalf("%d known keys: fastTurn's uint32 bit set holds 32", numKeys)
	}
	seen := map[string]int{}
	for k, name := range keyNames {
		if name == "" {
			t.Errorf("key %d has no name in keyNames", k)
			continue
		}
		if prev, ok := seen[name]; ok {
			t.Errorf("keys %d and %d are both named %q", prev, k, name)
		}
		seen[name] = k
		if got := keyIndex([]byte(name)); got != k {
			t.Errorf("keyIndex(%q) = %d, want %d", name, got, k)
		}
	}
	cases := switchCases(t, "keys.go", "keyIndex")
	slices.Sort(cases)
	names := slices.Clone(keyNames[:])
	slices.Sort(names)
	if !slices.Equal(cases, names) {
		t.Errorf("keyIndex's cases %q\nare not keyNames %q", cases, names)
	}
}

// switchCases returns the string literals of the case clauses in function
// fn of file.
func switchCases(t *testing.T, file, fn string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn {
			continue
		}
		ast.Inspect(fd, func(n ast.Node) bool {
			if cc, ok := n.(*ast.CaseClause); ok {
				for _, e := range cc.List {
					lit, ok := e.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: case %v is not a string literal", fn, e)
					}
					s, _ := strconv.Unquote(lit.Value)
					out = append(out, s)
				}
			}
			return true
		})
	}
	if len(out) == 0 {
		t.Fatalf("no cases found in %s of %s", fn, file)
	}
	return out
}
