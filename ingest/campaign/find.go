package campaign

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/ingest/runinit"
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
// which no run directory is found. Find also says which directories were
// passed over, and why.
func RunDirs(args []string) ([]string, error) {
	dirs, _, err := Find(args)
	return dirs, err
}

// Skipped is a directory under an argument of Find that holds no run.
type Skipped struct {
	Dir string
	// Gateway is the gateway log (a load generator's export, say) found in
	// Dir when Dir has no run.yaml: outlast init DIR writes its manifest.
	Gateway string
	// Dataset says Dir is a dataset, which is never searched.
	Dataset bool
}

// Reason says why s holds no run, for a message that names s.Dir before it.
func (s Skipped) Reason() string {
	switch {
	case s.Dataset:
		return "an outlast dataset, not searched for runs"
	case s.Gateway != "":
		return fmt.Sprintf("no %s beside its gateway log %s: write one with \"outlast init %s\", fill it in, and ingest again",
			rundir.ManifestName, s.Gateway, s.Dir)
	}
	return fmt.Sprintf("no %s in it or in any directory under it", rundir.ManifestName)
}

// Find is RunDirs, and also returns the directories under the arguments
// that hold no run, in the order found: each dataset, each directory with
// a gateway log but no run.yaml (outlast init writes one), and, of a tree
// without either, its top directory only. Directories whose names begin
// with "." are not listed. An argument under which no run directory is
// found is an error that names the gateway logs found there.
func Find(args []string) (dirs []string, skipped []Skipped, err error) {
	f := finder{runs: map[string]int{}}
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			return nil, nil, fmt.Errorf("%s: not a directory (want a run directory with %s)", a, rundir.ManifestName)
		}
		n, skips, err := f.walk(a)
		if err != nil {
			return nil, nil, err
		}
		if n == 0 {
			msg := fmt.Sprintf("%s: no %s here or in any directory under it", a, rundir.ManifestName)
			for _, s := range skips {
				if s.Gateway != "" {
					msg += fmt.Sprintf("; %s holds the gateway log %s: write its manifest with \"outlast init %s\"", s.Dir, s.Gateway, s.Dir)
				}
			}
			return nil, nil, errors.New(msg)
		}
		skipped = append(skipped, skips...)
	}
	return f.dirs, skipped, nil
}

// finder walks the arguments of RunDirs.
type finder struct {
	dirs []string
	// runs counts the run directories at or under each directory visited,
	// by its path with links resolved.
	runs map[string]int
}

// walk adds the run directories at or under dir not added before, and
// returns how many there are, added now or before, and the directories
// at or under dir that hold none (Find).
func (f *finder) walk(dir string) (int, []Skipped, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return 0, nil, err
	}
	if n, ok := f.runs[real]; ok {
		return n, nil, nil // visited (or being visited: a link back up)
	}
	f.runs[real] = 0
	if rundir.IsRunDir(dir) {
		f.dirs = append(f.dirs, dir)
		f.runs[real] = 1
		return 1, nil, nil
	}
	if _, err := os.Lstat(filepath.Join(dir, schema.DatasetLockName)); err == nil {
		// A dataset (one kept inside its campaign): no runs, and 5
		// directories a run to list.
		return 0, []Skipped{{Dir: dir, Dataset: true}}, nil
	}
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return 0, nil, err
	}
	total := 0
	var skipped []Skipped
	if gw, err := runinit.FindGateway(dir); err == nil {
		skipped = append(skipped, Skipped{Dir: dir, Gateway: gw})
	}
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
			n, skips, err := f.walk(p)
			if err != nil {
				return 0, nil, err
			}
			total += n
			skipped = append(skipped, skips...)
		}
	}
	f.runs[real] = total
	if total == 0 && !slices.ContainsFunc(skipped, func(s Skipped) bool { return s.Gateway != "" || s.Dataset }) {
		// Nothing under dir to act on: dir alone stands for its tree.
		skipped = []Skipped{{Dir: dir}}
	}
	return total, skipped, nil
}
