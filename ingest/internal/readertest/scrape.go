package readertest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/schema"
)

// FormatScrape renders a metrics sample in the stable one-line text form
// of the metrics readers' tests and golden files: "-" for a null field.
func FormatScrape(s schema.EngineSample) string {
	f := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "line=%d t=%s %s/%s engine=%d run=%s wait=%s kv=%s dt=%s queries=%s hits=%s prompt=%s gen=%s preempt=%s",
		s.Line, strconv.FormatFloat(s.TS, 'f', 3, 64), s.Source, s.Kind, s.EngineIndex,
		f(s.Running), f(s.Waiting), f(s.KVUsage), f(s.IntervalS),
		f(s.PrefixQueries), f(s.PrefixHits), f(s.PromptTokens), f(s.GenerationTokens), f(s.Preemptions))
	if s.CounterReset {
		b.WriteString(" RESET")
	}
	return b.String()
}
