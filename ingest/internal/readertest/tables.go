package readertest

import "testing"

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
