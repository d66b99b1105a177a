package layers

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/outlast-dev/outlast/"

// allowed lists, for each layer (a package's first path element), the
// layers its non-test files may import. A layer always may import itself.
var allowed = map[string][]string{
	"textpos":  {},
	"schema":   {},
	"internal": {"textpos"},
	"ingest":   {"textpos", "schema", "internal"},
	"dataset":  {"textpos", "schema", "internal"},
	"stats":    {"schema", "internal"},
	"sim":      {"schema", "internal"},
	"export":   {"schema", "internal"},
	"report":   {"schema", "stats", "internal"},
	"compare":  {"schema", "stats", "internal", "report"},
	"replay":   {"schema", "stats", "internal", "sim"},
	"alerts":   {"schema", "stats", "internal"},
	"cmd":      nil, // only wires, and is the only door to the dataset
}

func TestImportsPointOneWay(t *testing.T) {
	root := filepath.Join("..", "..")
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		layer := strings.Split(rel, "/")[0]
		ok, known := allowed[layer]
		if !known {
			t.Errorf("%s: layer %q has no rule in allowed", rel, layer)
			return nil
		}
		n++
		if layer == "cmd" {
			return nil
		}
		for _, imp := range pkg.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			to := strings.Split(strings.TrimPrefix(imp, module), "/")[0]
			if to != layer && !slices.Contains(ok, to) {
				t.Errorf("%s imports %s: %s may import only %v", rel, strings.TrimPrefix(imp, module), layer, ok)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("checked %d packages; the walk went wrong", n)
	}
}

func TestRootHoldsOnlyKnownLayers(t *testing.T) {
	ents, err := os.ReadDir(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if _, ok := allowed[e.Name()]; ok {
			continue
		}
		switch e.Name() {
		case "docs", "scripts", "tools", "bin", "demo", "fixtures":
			continue
		}
		pkgs, _ := filepath.Glob(filepath.Join("..", "..", e.Name(), "*.go"))
		if len(pkgs) > 0 {
			t.Errorf("top-level package %s has no layer rule", e.Name())
		}
	}
}
