package readertest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/schema"
)

// lineCaseFile is a line case as the file writes it: the expected sample
// as a map from the sample's Parquet column names to their values.
type lineCaseFile struct {
	Name string               `yaml:"name"`
	T0   string               `yaml:"t0"`
	Line string               `yaml:"line"`
	Want map[string]yaml.Node `yaml:"want"`
	Err  string               `yaml:"err"`
}

// sampleColumns maps the Parquet column names of an EngineSample to the
// indices of its fields, so that a case names its values as the dataset
// does.
var sampleColumns = func() map[string]int {
	cols := map[string]int{}
	st := reflect.TypeFor[schema.EngineSample]()
	for i := range st.NumField() {
		name, _, _ := strings.Cut(st.Field(i).Tag.Get("parquet"), ",")
		if name != "" && name != "-" {
			cols[name] = i
		}
	}
	return cols
}()

// LoadLines reads a table of line cases for CheckLines from a YAML file
// (LinesFile): a list of cases, each with its name, t0 and line (a
// double-quoted scalar holding the exact bytes), and then want, the values
// of the expected sample by column name (a pointer column left out is
// null, any other zero), or err, a substring of the expected error, or
// neither, for a line that is not a sample. Names are unique.
func LoadLines(t testing.TB, path string) []LineCase {
	t.Helper()
	var file []lineCaseFile
	decodeYAMLFile(t, path, &file)
	cases := make([]LineCase, 0, len(file))
	names := map[string]bool{}
	for _, c := range file {
		if c.Name == "" || names[c.Name] || c.T0 == "" {
			t.Fatalf("%s: case %q: name empty or repeated, or no t0", path, c.Name)
		}
		names[c.Name] = true
		if c.Want != nil && c.Err != "" {
			t.Fatalf("%s: %s: both want and err", path, c.Name)
		}
		tc := LineCase{Name: c.Name, T0: c.T0, Line: c.Line, Err: c.Err}
		if c.Want != nil {
			tc.Want = new(schema.EngineSample)
			if err := setColumns(tc.Want, c.Want); err != nil {
				t.Fatalf("%s: %s: %v", path, c.Name, err)
			}
		}
		cases = append(cases, tc)
	}
	return cases
}

// setColumns sets the sample's fields named by the columns' names.
func setColumns(s *schema.EngineSample, cols map[string]yaml.Node) error {
	v := reflect.ValueOf(s).Elem()
	for name, node := range cols {
		i, ok := sampleColumns[name]
		if !ok {
			return fmt.Errorf("no column %q in an engine sample", name)
		}
		f := v.Field(i)
		dst := f.Addr()
		if f.Kind() == reflect.Pointer {
			dst = reflect.New(f.Type().Elem())
			f.Set(dst)
		}
		if err := node.Decode(dst.Interface()); err != nil {
			return err
		}
	}
	return nil
}

// The files under a reader's testdata that hold its tables as data
// (CheckTables).
const (
	LinesFile = "testdata/lines.yaml" // []LineCase, for CheckLines (LoadLines)
	InfoFile  = "testdata/info.yaml"  // []InfoCase, for CheckInfo
	MatchFile = "testdata/match.yaml" // lines and whether they Match
)

// CheckTables runs the checks whose tables the reader keeps as data, each
// as a subtest: CheckLines on LinesFile, CheckInfo on InfoFile and
// CheckMatch on MatchFile.
func (e Engine) CheckTables(t *testing.T) {
	t.Run("lines", func(t *testing.T) { e.CheckLines(t, LoadLines(t, LinesFile)) })
	t.Run("info", func(t *testing.T) {
		var cases []InfoCase // keys: the fields' names in lower case
		decodeYAMLFile(t, InfoFile, &cases)
		e.CheckInfo(t, cases)
	})
	t.Run("match", func(t *testing.T) {
		var lines map[string]bool
		decodeYAMLFile(t, MatchFile, &lines)
		e.CheckMatch(t, lines)
	})
}
