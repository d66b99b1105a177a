package replay

import (
	"fmt"
	"slices"
	"strings"

	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/schema"
)

// Load reads the observed run and the dataset's calibration runs of the
// same engine and model (prefix caching off, see Calibration) and fits
// the replay model.
func Load(root, run string) (*Model, error) {
	names, err := dataset.Runs(root)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(names, run) {
		return nil, fmt.Errorf("%w: dataset %s has no run %q (%s)", ErrUnknownRun, root, run, listRuns(names))
	}
	rd, err := dataset.ReadRun(root, run)
	if err != nil {
		return nil, err
	}
	var calib []*schema.RunData
	for _, n := range names {
		if n == run {
			continue
		}
		row, err := dataset.ReadRunRow(root, n)
		if err != nil {
			return nil, err
		}
		if !Calibration(&rd.Run, &row) {
			continue
		}
		c, err := dataset.ReadRun(root, n)
		if err != nil {
			return nil, err
		}
		calib = append(calib, c)
	}
	return Fit(rd, calib)
}

// Calibration reports whether run c calibrates the engine of run obs: the
// same engine and model (both named), prefix caching off, and not itself a
// simulated replay.
func Calibration(obs, c *schema.Run) bool {
	return !c.PrefixCaching && c.Design != schema.DesignReplay && c.EngineName == obs.EngineName &&
		c.EngineModel != "" && c.EngineModel == obs.EngineModel
}

// listRuns names a few of the dataset's runs for an error message.
func listRuns(names []string) string {
	const most = 8
	switch {
	case len(names) == 0:
		return "it has none"
	case len(names) > most:
		return "it has " + strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return "it has " + strings.Join(names, ", ")
}
