package promseries

// This file keeps the Builder's own notes: metrics given in both
// spellings, series of several scrape targets summed.

import (
	"fmt"
	"slices"
	"strings"
)

// spread is what the notes say of a metric whose summed series came from
// several scrape targets: the targets (at most maxServers of them) and the
// number of samples.
type spread struct {
	servers [][2]string // instance, job
	samples int
}

// maxServers bounds the targets a note lists.
const maxServers = 8

// noteServers records, for the chosen metrics of the fields marked mixed,
// the scrape targets of their series in the current sample.
func (b *Builder) noteServers(chosen [nFields]int, mixed [nFields]bool) {
	if b.servers == nil {
		b.servers = map[int]*spread{}
	}
	var done [NumMetrics]bool // a metric may feed two fields
	for f, m := range chosen {
		if !mixed[f] || done[m] {
			continue
		}
		done[m] = true
		sp := b.servers[m]
		if sp == nil {
			sp = &spread{}
			b.servers[m] = sp
		}
		sp.samples++
		for k := range b.obs {
			o := &b.obs[k]
			if o.metric != m || len(sp.servers) == maxServers {
				continue
			}
			if s := [2]string{o.instance, o.job}; !slices.Contains(sp.servers, s) {
				sp.servers = append(sp.servers, s)
			}
		}
	}
}

// notes returns the Builder's own warnings, in metric order.
func (b *Builder) notes() []string {
	var out []string
	for m, n := range b.twins {
		if n > 0 {
			out = append(out, fmt.Sprintf("%s: WARNING: %s and %s were both given in %d samples: "+
				"one metric in two spellings (the engine's own, and a gateway's or pipeline's that turns ':' into '_'), "+
				"likely one series read twice; %s was read and %s left out, not added",
				b.input, metricNames[m], spelled[m+nMetrics], n, metricNames[m], spelled[m+nMetrics]))
		}
	}
	for m := range NumMetrics {
		sp := b.servers[m]
		if sp == nil {
			continue
		}
		var servers []string
		for _, s := range sp.servers {
			if s == [2]string{} {
				servers = append(servers, "{no instance or job label}")
			} else {
				servers = append(servers, fmt.Sprintf("{instance=%q, job=%q}", s[0], s[1]))
			}
		}
		slices.Sort(servers)
		out = append(out, fmt.Sprintf("%s: WARNING: %s: in %d of %d samples, series of more than one scrape target were summed as if they were one engine's replicas: %s. "+
			"Export one server's series (add a matcher such as instance=\"…\"), or ingest each server as its own run",
			b.input, Name(m), sp.samples, b.info.Scrapes, strings.Join(servers, ", ")))
	}
	return out
}
