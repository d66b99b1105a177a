package stats

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// TestUnreadEngineColumns checks that no code of the packages that read
// runs with UnreadEngineColumns left out (stats, report, compare) names
// the fields of those columns, and that each names a column of the
// engine table.
func TestUnreadEngineColumns(t *testing.T) {
	fields := map[string]string{} // Go field → column
	rt := reflect.TypeFor[schema.EngineSample]()
	for i := range rt.NumField() {
		col, _, _ := strings.Cut(rt.Field(i).Tag.Get("parquet"), ",")
		if slices.Contains(UnreadEngineColumns, col) {
			fields[rt.Field(i).Name] = col
		}
	}
	if len(fields) != len(UnreadEngineColumns) {
		t.Fatalf("columns %v name %d engine fields, want %d", UnreadEngineColumns, len(fields), len(UnreadEngineColumns))
	}
	for _, dir := range []string{".", "../report", "../report/document", "../report/render", "../compare"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if col, ok := fields[sel.Sel.Name]; ok {
						t.Errorf("%s reads .%s, the unread column %s", fset.Position(sel.Pos()), sel.Sel.Name, col)
					}
				}
				return true
			})
		}
	}
}
