package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/ingest/rundir"
)

// runDirsIn returns the names of the run directories (those holding a
// run.yaml) directly in dir; none when dir does not exist.
func runDirsIn(dir string) map[string]bool {
	entries, _ := os.ReadDir(dir) // a dir that cannot be read holds none to warn of
	found := map[string]bool{}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "run.yaml")); err == nil {
			found[e.Name()] = true
		}
	}
	return found
}

// warnStale warns when dir held run directories before (before) that the
// command did not write again (written, their paths): simulate and replay
// write into an existing directory, and an ingest of it would mix an
// earlier invocation's runs with this one's.
func warnStale(stderr io.Writer, cmd, dir string, before map[string]bool, written []string) {
	for _, p := range written {
		delete(before, filepath.Base(p))
	}
	if len(before) == 0 {
		return
	}
	stale := make([]string, 0, len(before))
	for name := range before {
		stale = append(stale, name)
	}
	slices.Sort(stale)
	shown := stale
	if len(shown) > 3 {
		shown = append(shown[:3:3], "…")
	}
	fmt.Fprintf(stderr, "outlast: %s: warning: %s also holds %d run director%s this command did not write (%s), from an earlier one: an ingest of %s would mix them with these; use another --out, or remove them\n",
		cmd, dir, len(stale), map[bool]string{true: "y", false: "ies"}[len(stale) == 1], strings.Join(shown, ", "), dir)
}

// mustExist returns the bad-input error "prefixPATH does not exist" for the
// first of paths that does not exist, in the words a user gave it, rather
// than the system call's ("stat PATH: no such file or directory").
func mustExist(prefix string, paths ...string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return inputError(fmt.Errorf("%s%s does not exist", prefix, p))
		}
	}
	return nil
}

// checkOutFile returns the bad-input error of cmd's -o FILE whose
// directory is not there, or that is a directory, before any work is done
// and in the words the user gave (the write would otherwise fail at the
// end, naming the temporary file it writes first). "" and "-" are
// standard output.
func checkOutFile(cmd, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return inputError(fmt.Errorf("%s: --out %s is a directory, not a file", cmd, path))
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return inputError(fmt.Errorf("%s: --out %s: directory %s does not exist", cmd, path, dir))
	case err == nil && !fi.IsDir():
		return inputError(fmt.Errorf("%s: --out %s: %s is not a directory", cmd, path, dir))
	}
	return nil
}

// checkOutDir returns the bad-input error of cmd's -o DIR that is a file,
// and the usage error of "-o -", standard output to the commands that
// write a file, which would otherwise be a directory named "-".
func checkOutDir(cmd, path string) error {
	if path == "-" {
		return usageErrorf("%s: --out -: a directory, not standard output", cmd)
	}
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return inputError(fmt.Errorf("%s: --out %s is a file, not a directory", cmd, path))
	}
	return nil
}

// checkOutDataset returns the bad-input error of ingest's --out DATASET
// that is neither a new or empty directory nor a dataset (a directory of
// someone's, a campaign, a run directory): nothing is written into it.
// For a new one it returns the first directory of its path that does not
// exist, which the ingest makes (removeMade).
func checkOutDataset(out string) (made string, err error) {
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		made = filepath.Clean(out)
		for {
			parent := filepath.Dir(made)
			if _, err := os.Stat(parent); !errors.Is(err, fs.ErrNotExist) || parent == made {
				return made, nil
			}
			made = parent
		}
	case err != nil:
		return "", inputError(fmt.Errorf("ingest: --out %s: %w", out, err))
	case len(entries) == 0 || dataset.IsDataset(out):
		return "", nil
	}
	var what string
	switch runs := runDirsIn(out); {
	case rundir.IsRunDir(out):
		what = "it is a run directory (it holds " + rundir.ManifestName + ")"
	case len(runs) > 0:
		what = "it holds run directories"
	default:
		names := make([]string, 0, 3)
		for _, e := range entries[:min(3, len(entries))] {
			names = append(names, e.Name())
		}
		if len(entries) > 3 {
			names = append(names, "…")
		}
		what = "it holds " + strings.Join(names, ", ")
	}
	return "", inputError(fmt.Errorf("ingest: --out %s is not an outlast dataset, and not empty: %s; --out names the dataset to write: a new or empty directory, or a dataset an ingest wrote", out, what))
}

// removeMade removes the dataset out after a failed ingest that made it,
// and the directories above it that the ingest made (up to made, as
// checkOutDataset returned it), when nothing but their lock files is in
// them; it reports whether out was removed. made "" is an out that was
// there before.
func removeMade(out, made string) bool {
	if made == "" {
		return false
	}
	if removed, err := dataset.RemoveIfEmpty(out); !removed || err != nil {
		return false
	}
	for d := filepath.Clean(out); d != made && d != filepath.Dir(d); {
		d = filepath.Dir(d)
		if os.Remove(d) != nil {
			break
		}
		if d == made {
			break
		}
	}
	return true
}
