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
