package render

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/outlast-dev/outlast/internal/atomicfile"
	"github.com/outlast-dev/outlast/report/document"
)

// The files of a report directory.
const (
	IndexFile   = "index.html"
	SummaryFile = "summary.json"
	TablesDir   = "tables"
	// OwnedFile lists the files the report in a directory wrote, one
	// slash-separated relative path a line, sorted, so that the next
	// report into the directory removes those it does not write again and
	// nothing else: a report directory holds exactly one report even when
	// it is shared with other files ("--out .").
	OwnedFile = ".outlast-report"
)

// WriteReport writes the report of d, whose summary.json holds summary,
// into dir: tables/ as WriteTables, summary.json as WriteJSON and
// index.html as WriteHTML write them, each atomically, dir's files handled
// as OpenOutDir says. It validates d once, first, and writes nothing if d
// is invalid.
func WriteReport(dir string, d *document.Doc, summary any) error {
	if err := document.Validate(d); err != nil {
		return err
	}
	out, err := OpenOutDir(dir, ReportFiles(d))
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := writeTables(dir, d); err != nil {
		return err
	}
	if err := WriteJSON(filepath.Join(dir, SummaryFile), summary); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, IndexFile), func(w io.Writer) error { return writeHTML(w, d) }); err != nil {
		return err
	}
	return out.Finish()
}

// ReportFiles returns the files a report of d writes in its directory,
// relative and slash-separated, sorted.
func ReportFiles(d *document.Doc) []string {
	files := []string{IndexFile, SummaryFile}
	for _, t := range document.Tables(d) {
		files = append(files, TablesDir+"/"+t.ID+".csv", TablesDir+"/"+t.ID+".md")
	}
	slices.Sort(files)
	return files
}

// OutDir is a report directory being written: the files of the report
// before it, and those of the new one.
type OutDir struct {
	dir            string
	earlier, files []string
}

// OpenOutDir prepares dir (created if needed) for a report that writes
// files (ReportFiles), and records them beside the earlier report's before
// any is written, so that a report interrupted half-way is still wholly
// removed by the next. Call Finish once every file is written.
func OpenOutDir(dir string, files []string) (*OutDir, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	earlier, err := readOwned(dir)
	if err != nil {
		return nil, err
	}
	o := &OutDir{dir: dir, earlier: earlier, files: files}
	union := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(earlier), files...))))
	if !slices.Equal(union, earlier) {
		if err := writeOwned(dir, union); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// Finish removes the earlier report's files that the new one did not
// write, and records the new report's files as the directory's.
func (o *OutDir) Finish() error {
	for _, f := range o.earlier {
		if _, again := slices.BinarySearch(o.files, f); again {
			continue
		}
		if err := os.Remove(filepath.Join(o.dir, filepath.FromSlash(f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return writeOwned(o.dir, o.files)
}

// readOwned returns the files listed in dir's OwnedFile (none when there
// is none). A line that is not a name a report writes (a hand edit, a
// path leading elsewhere) is ignored: it is not the report's to remove.
func readOwned(dir string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, OwnedFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var files []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := sc.Text(); reportFileName(f) {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return slices.Compact(files), sc.Err()
}

// reportFileName reports whether f is a name a report writes: index.html,
// summary.json or tables/NAME.csv or .md.
func reportFileName(f string) bool {
	if f == IndexFile || f == SummaryFile {
		return true
	}
	name, ok := strings.CutPrefix(f, TablesDir+"/")
	ext := path.Ext(name)
	return ok && name != "" && !strings.ContainsAny(name, `/\`) && path.Clean(f) == f &&
		(ext == ".csv" || ext == ".md") && name != ext
}

func writeOwned(dir string, files []string) error {
	return atomicfile.WriteFile(filepath.Join(dir, OwnedFile), []byte(strings.Join(files, "\n")+"\n"))
}
