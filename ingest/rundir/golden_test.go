package rundir

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/golden"
)

// TestDatasetBytesGolden pins the bytes of every file the real fixture
// runs make: a change of the files' format (encodings, compression, page
// sizes, metadata) shows here and is re-baselined on purpose, with -update.
func TestDatasetBytesGolden(t *testing.T) {
	dirs := make([]string, len(fixtureRuns))
	for i, name := range fixtureRuns {
		dirs[i] = fixture(name)
	}
	root := t.TempDir()
	stageRuns(t, root, false, Options{Version: "test"}, dirs...)
	files := datasetFiles(t, root)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	var sb strings.Builder
	for _, name := range names {
		fmt.Fprintf(&sb, "%x %8d %s\n", sha256.Sum256(files[name]), len(files[name]), name)
	}
	golden.Check(t, "testdata/dataset-bytes.golden", []byte(sb.String()))
}
