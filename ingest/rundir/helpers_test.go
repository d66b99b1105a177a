package rundir

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/dataset"
)

// The helpers of this package's tests: fixture runs and edited copies of
// them, reading them, and staging them into datasets to compare bytes.

var fixtureRuns = []string{"vllm-0.8", "vllm-0.10", "vllm-2026", "sglang-0.4", "sglang-2026"}

func fixture(name string) string { return filepath.Join("..", "..", "fixtures", "real", name) }

// copyRun copies a fixture run directory to a temporary one for editing.
func copyRun(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(fixture(name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// rewrite edits the file at path with edit, which must change it.
func rewrite(t *testing.T, path string, edit func(string) string) {
	t.Helper()
	before := readFile(t, path)
	after := edit(before)
	if after == before {
		t.Fatalf("could not edit %s", path)
	}
	writeFile(t, path, after)
}

// writeFile writes text to the file at path, making its directory.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(line + "\n")
}

// appendedRun is the vllm-2026 fixture with lines appended to its gateway
// log.
func appendedRun(t *testing.T, lines ...string) string {
	t.Helper()
	dir := copyRun(t, "vllm-2026")
	for _, l := range lines {
		appendLine(t, filepath.Join(dir, "gateway.jsonl"), l)
	}
	return dir
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func itoa(i int) string { return strconv.Itoa(i) }

// readAll reads the runs in dir, failing the test on an error.
func readAll(t *testing.T, dir string, opt Options) []*Result {
	t.Helper()
	res, err := ReadAll(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// read reads the run in dir, failing the test on an error.
func read(t *testing.T, dir string, opt Options) *Result {
	t.Helper()
	res, err := Read(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// warned checks that one of res's warnings says want.
func warned(t *testing.T, res *Result, want string) {
	t.Helper()
	if !strings.Contains(strings.Join(res.Warnings, "\n"), want) {
		t.Errorf("no warning %q among %q", want, res.Warnings)
	}
}

// datasetFiles returns every file of the dataset at root by relative path,
// but its lock files (always empty).
func datasetFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == dataset.LockName || d.Name() == dataset.TurnstileName {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// stageRuns writes the runs in dirs into a new dataset at root, read into
// memory and written with Stage.WriteRun, or streamed through Stream, and
// returns their results.
func stageRuns(t *testing.T, root string, streaming bool, opt Options, dirs ...string) []*Result {
	t.Helper()
	st, err := dataset.NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	var out []*Result
	for _, dir := range dirs {
		var res *Result
		if streaming {
			res, err = Stream(dir, opt, stageSink(st))
		} else if res, err = Read(dir, opt); err == nil {
			err = st.WriteRun(res.Data)
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res)
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	return out
}

// stageSink opens the runs' Sinks in st, as cmd/outlast does.
func stageSink(st *dataset.Stage) BeginFunc {
	return func(name string) (Sink, error) { return st.BeginRun(name) }
}

// streamErr streams dir into a stage that it then discards, and returns
// the error.
func streamErr(t *testing.T, dir string, opt Options) error {
	t.Helper()
	st, err := dataset.NewStage(t.TempDir(), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Abort()
	_, err = Stream(dir, opt, stageSink(st))
	return err
}

// sameFiles checks that a and b hold the same files with the same bytes.
func sameFiles(t *testing.T, a, b map[string][]byte, what string) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %d files against %d", what, len(a), len(b))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s: %s differs", what, name)
		}
	}
}
