package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/replay"
	"github.com/outlast-dev/outlast/schema"
)

// loadReplay reads the observed run and the dataset's calibration runs of
// the same engine and model (replay.Calibration) and fits the replay model.
func loadReplay(root, run string) (*replay.Fitted, error) {
	names, err := dataset.Runs(root)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(names, run) {
		return nil, fmt.Errorf("unknown run: dataset %s has no run %q (%s)", root, run, nameSome(names))
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
		if !replay.Calibration(&rd.Run, &row) {
			continue
		}
		c, err := dataset.ReadRun(root, n)
		if err != nil {
			return nil, err
		}
		calib = append(calib, c)
	}
	return replay.Fit(rd, calib)
}

// nameSome names a few of the dataset's runs for an error message.
func nameSome(names []string) string {
	const most = 8
	switch {
	case len(names) == 0:
		return "it has none"
	case len(names) > most:
		return "it has " + strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return "it has " + strings.Join(names, ", ")
}
