package promscrape

import (
	"strings"
	"testing"
)

// TestSplitNameOrder checks the filter of scrapes whose families come in
// another order from one scrape to the next (nameOrder relearns it), with
// unknown families between known ones and a name both HELP and TYPE name.
func TestSplitNameOrder(t *testing.T) {
	family := map[string]string{
		"run":   "# HELP vllm:num_requests_running Running.\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n",
		"wait":  "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting 2\n",
		"other": "# HELP process_cpu_seconds_total CPU.\n# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 3\n",
		"kv":    "# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc 0.5\n",
	}
	orders := [][]string{
		{"run", "wait", "other", "kv"},
		{"run", "wait", "other", "kv"},
		{"kv", "other", "run", "wait"},
		{"run", "other", "kv"},
		{"run", "wait", "other", "kv"},
	}
	var in, want strings.Builder
	var wants []string
	for k, order := range orders {
		in.WriteString("# scrape " + string(rune('1'+k)) + "000\n")
		want.Reset()
		for _, f := range order {
			in.WriteString(family[f])
			if f != "other" {
				want.WriteString(family[f])
			}
		}
		wants = append(wants, want.String())
	}
	got := inputScrapes(t, []byte(in.String()))
	if len(got) != len(wants) {
		t.Fatalf("%d scrapes, want %d", len(got), len(wants))
	}
	for k := range got {
		if string(got[k]) != wants[k] {
			t.Errorf("scrape %d kept\n%s\nwant\n%s", k, got[k], wants[k])
		}
	}
}
