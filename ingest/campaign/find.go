package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/schema"
)

// RunDirs returns the run directories that args name, in order. An
// argument that holds run.yaml is a run directory; any other directory is
// searched to any depth for the directories that do, in the order of their
// names, the way campaigns are laid out (campaign/model/rate/seed/). A run
// directory is not searched further (a GuideLLM sweep's runs are its own).
// Directories whose names begin with "." are passed over (version control,
// an ingest's staging), and so are datasets (schema.DatasetLockName), which
// are often kept inside their campaign. Symbolic links to directories are
// followed, and a directory reached twice, through a link or two
// arguments, counts once.
// A directory that cannot be read is an error, as is an argument under
// which no run directory is found: nothing is skipped silently.
func RunDirs(args []string) ([]string, error) {
	f := finder{runs: map[string]int{}}
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s: not a directory (want a run directory with %s)", a, rundir.ManifestName)
		}
		n, err := f.walk(a)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no %s here or in any directory under it", a, rundir.ManifestName)
		}
	}
	return f.dirs, nil
}

// finder walks the arguments of RunDirs.
type finder struct {
	dirs []string
	// runs counts the run directories at or under each directory visited,
	// by its path with links resolved.
	runs map[string]int
}

// walk adds the run directories at or under dir not added before, and
// returns how many there are, added now or before.
func (f *finder) walk(dir string) (int, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return 0, err
	}
	if n, ok := f.runs[real]; ok {
		return n, nil // visited (or being visited: a link back up)
	}
	f.runs[real] = 0
	if rundir.IsRunDir(dir) {
		f.dirs = append(f.dirs, dir)
		f.runs[real] = 1
		return 1, nil
	}
	if _, err := os.Lstat(filepath.Join(dir, schema.DatasetLockName)); err == nil {
		return 0, nil // a dataset (one kept inside its campaign): no runs, and 5 directories a run to list
	}
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return 0, err
	}
	total := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			// A link to a directory is followed; a broken link, or one to
			// a file, is not a directory of runs.
			st, err := os.Stat(p)
			isDir = err == nil && st.IsDir()
		}
		if isDir {
			n, err := f.walk(p)
			if err != nil {
				return 0, err
			}
			total += n
		}
	}
	f.runs[real] = total
	return total, nil
}
