package main

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/outlast-dev/outlast/compare"
	"github.com/outlast-dev/outlast/schema"
)

// noMatchHint returns, when no configuration has runs in two columns of a
// comparison (labels and runs, by column; ignored, the key fields left out
// of the key, --by's among them; given, those --ignore named), the warning
// that says which key fields kept the configurations apart, with their
// values in each column, and the --ignore that would match them: the
// fewest such fields. "" when a configuration matched, or when no --ignore
// would make one match (a column without runs).
func noMatchHint(labels []string, runs [][]*schema.Run, ignored, given []string) string {
	if len(runs) < 2 {
		return ""
	}
	off := map[string]bool{}
	for _, f := range ignored {
		off[f] = true
	}
	var free []int // the key fields still in the key, by index
	for i, f := range compare.KeyFields {
		if !off[f] {
			free = append(free, i)
		}
	}
	configs := make([][]compare.Config, len(runs))
	for j, col := range runs {
		for _, r := range col {
			configs[j] = append(configs[j], compare.ConfigOf(r))
		}
	}
	if matches(configs, off) {
		return ""
	}
	// The smallest set of fields whose leaving out matches configurations:
	// every subset of the free fields, by size (8 fields: 256 subsets).
	best := -1
	for set := 1; set < 1<<len(free); set++ {
		if best >= 0 && bits.OnesCount(uint(set)) >= bits.OnesCount(uint(best)) {
			continue
		}
		with := map[string]bool{}
		for f := range off {
			with[f] = true
		}
		for k, i := range free {
			if set&(1<<k) != 0 {
				with[compare.KeyFields[i]] = true
			}
		}
		if matches(configs, with) {
			best = set
		}
	}
	if best < 0 {
		return ""
	}
	var fields, apart []string
	for k, i := range free {
		if best&(1<<k) == 0 {
			continue
		}
		f := compare.KeyFields[i]
		fields = append(fields, f)
		var per []string
		for j := range configs {
			var vals []string
			for _, c := range configs[j] {
				if v := c[i]; !slices.Contains(vals, v) {
					vals = append(vals, v)
				}
			}
			slices.Sort(vals)
			if len(vals) > 3 {
				vals = append(vals[:3:3], fmt.Sprintf("… %d values", len(vals)))
			}
			per = append(per, fmt.Sprintf("%s: %s", labels[j], strings.Join(vals, ", ")))
		}
		apart = append(apart, fmt.Sprintf("%s (%s)", f, strings.Join(per, "; ")))
	}
	return fmt.Sprintf("no configuration has runs in more than one column: they differ in %s; to compare across that, add --ignore %s",
		strings.Join(apart, " and "), strings.Join(append(append([]string(nil), given...), fields...), ","))
}

// matches reports whether a configuration, the fields in off left out,
// has runs in two of the columns.
func matches(configs [][]compare.Config, off map[string]bool) bool {
	seen := map[compare.Config]int{} // a configuration → the first column holding it
	for j, col := range configs {
		for _, c := range col {
			for i, f := range compare.KeyFields {
				if off[f] {
					c[i] = ""
				}
			}
			if first, ok := seen[c]; ok && first != j {
				return true
			} else if !ok {
				seen[c] = j
			}
		}
	}
	return false
}
