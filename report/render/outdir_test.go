package render

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/report/document"
)

func writeFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(n), 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

func existing(t *testing.T, dir string) []string {
	t.Helper()
	var got []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	slices.Sort(got)
	return got
}

// TestOutDirRemovesOnlyTheEarlierReport writes an earlier report's files
// and the user's own beside them, and checks that a new report removes
// the earlier report's files it does not write again and nothing else,
// even when the list of owned files was edited to name others.
func TestOutDirRemovesOnlyTheEarlierReport(t *testing.T) {
	dir := t.TempDir()
	earlier := []string{"index.html", "summary.json", "tables/a.csv", "tables/a.md", "tables/old.csv", "tables/old.md"}
	mine := []string{"notes.txt", "tables/mine.csv", "run.yaml", "x/index.html"}
	writeFiles(t, dir, append(earlier, mine...)...)
	// An edited list naming files no report writes, and paths out of dir.
	owned := strings.Join(append(earlier, "notes.txt", "tables/../run.yaml", "../outside.csv", "tables/x/y.csv", "tables/.csv", "/etc/passwd"), "\n")
	if err := os.WriteFile(filepath.Join(dir, OwnedFile), []byte(owned+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(dir), "outside.csv")
	writeFiles(t, filepath.Dir(dir), "outside.csv")
	defer os.Remove(outside)

	doc := &document.Doc{Sections: []document.Section{{ID: "s", Blocks: []document.Block{
		&document.Table{ID: "a", Columns: []document.Column{{Name: "x"}}},
		&document.Table{ID: "new", Columns: []document.Column{{Name: "x"}}},
	}}}}
	files := ReportFiles(doc)
	if want := []string{"index.html", "summary.json", "tables/a.csv", "tables/a.md", "tables/new.csv", "tables/new.md"}; !slices.Equal(files, want) {
		t.Fatalf("ReportFiles = %q, want %q", files, want)
	}
	o, err := OpenOutDir(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	// Interrupted here, the list already names the new files with the old.
	b, _ := os.ReadFile(filepath.Join(dir, OwnedFile))
	if want := "index.html\nsummary.json\ntables/a.csv\ntables/a.md\ntables/new.csv\ntables/new.md\ntables/old.csv\ntables/old.md\n"; string(b) != want {
		t.Errorf("owned while writing:\n%s\nwant\n%s", b, want)
	}
	writeFiles(t, dir, files...)
	if err := o.Finish(); err != nil {
		t.Fatal(err)
	}
	want := append(append([]string{OwnedFile}, files...), mine...)
	slices.Sort(want)
	if got := existing(t, dir); !slices.Equal(got, want) {
		t.Errorf("files after the new report:\n%q\nwant\n%q", got, want)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("a file outside the report directory was removed: %v", err)
	}
	b, _ = os.ReadFile(filepath.Join(dir, OwnedFile))
	if string(b) != strings.Join(files, "\n")+"\n" {
		t.Errorf("owned after the report:\n%s", b)
	}
}
