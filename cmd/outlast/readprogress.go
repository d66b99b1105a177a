package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/schema"
)

// readProgress starts the progress display of a command reading the runs
// of a dataset: tick marks a run read, done clears the display. It is a
// func so that the commands sharing a dataset reader (report, compare,
// check) can be given it or noProgress.
type readProgress func(root string) (tick func(run string), done func())

// readProgress returns the display of fs's command reading a dataset's
// runs on w, one step per run, as --progress and -q ask.
func (f *cmdFlags) readProgress(w io.Writer) readProgress {
	return func(root string) (func(string), func()) {
		// The number of runs is a listing of the dataset's runs table;
		// an error there is the read's to report, and the bar stays off.
		names, _ := dataset.Runs(root)
		bar := f.bar(w, f.Name()+" "+filepath.Base(filepath.Clean(root)), len(names))
		n := 0
		return func(run string) { n++; bar.stepDone(n, run) }, bar.done
	}
}

// noProgress shows nothing.
func noProgress(string) (func(string), func()) { return func(string) {}, func() {} }

// each is dataset.Each with the progress of p.
func (p readProgress) each(root string, fn func(*schema.RunData) error, opts ...dataset.ReadOption) error {
	if err := datasetDir(root); err != nil {
		return err
	}
	tick, done := p(root)
	defer done()
	return dataset.Each(root, func(d *schema.RunData) error { tick(d.Run.Run); return fn(d) }, opts...)
}

// datasetDir returns the bad-input error of a DATASET argument that is a
// file, in the words of the dataset's own errors ("dataset: ds does not
// exist") rather than the system call's ("open ds: not a directory").
func datasetDir(root string) error {
	if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
		return inputError(fmt.Errorf("dataset: %s is a file, not a dataset directory", root))
	}
	return nil
}
