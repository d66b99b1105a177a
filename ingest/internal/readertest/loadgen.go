package readertest

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// TurnSource is a load generator's reader (aiperf, guidellm, infperf) as
// the tests see it.
type TurnSource interface {
	Next() (*loadgen.Turn, error)
}

// Loadgen is what a load generator's reader gave, through a
// loadgen.Collector: the turns in the order read (those numbered at the
// end last), the derived sessions, and each error as a string.
type Loadgen struct {
	Turns    []schema.Turn
	Sessions []schema.Session
	Errs     []string
	N        int64 // turns accepted
	Cached   int64 // of which carried a cached-token count
}

// Collect reads src to its end through a Collector, going on after
// positioned errors as a lenient ingest does; another error ends the read
// and is the last of Errs.
func Collect(src TurnSource) Loadgen {
	var out Loadgen
	c := loadgen.New(nil)
	for {
		t, err := src.Next()
		if err == io.EOF {
			break
		}
		if err == nil {
			err = c.Add(t)
		}
		if err != nil {
			out.Errs = append(out.Errs, err.Error())
			var pe *textpos.ParseError
			if !errors.As(err, &pe) {
				break
			}
		}
	}
	c.Finish(func(s schema.Session) error { out.Sessions = append(out.Sessions, s); return nil })
	out.Turns, out.N, out.Cached = c.Turns(), c.N, c.Cached
	return out
}

// Table formats what was read as tab-separated tables (turns, sessions,
// errors) for golden files: times in run seconds to the microsecond, null
// for a missing one.
func (l Loadgen) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %d turns (%d with a cached-token count), %d sessions, %d errors\n", l.N, l.Cached, len(l.Sessions), len(l.Errs))
	b.WriteString("session\tturn\tready_s\tsent_s\tfirst_token_s\tdone_s\tprompt\tcached\toutput\tstatus\n")
	for _, t := range l.Turns {
		fmt.Fprintf(&b, "%s\t%d\t%s\t%s\t%s\t%.6f\t%d\t%d\t%d\t%s\n", t.Session, t.Turn, opt(t.ReadyS), opt(t.SentS), opt(t.FirstTokenS),
			t.DoneS, t.PromptTokens, t.CachedTokens, t.OutputTokens, t.Status)
	}
	b.WriteString("\nsession\tarrive_s\tend_s\tstatus\tturns_done\n")
	for _, s := range l.Sessions {
		fmt.Fprintf(&b, "%s\t%.6f\t%s\t%s\t%d\n", s.Session, s.ArriveS, opt(s.EndS), s.Status, s.TurnsDone)
	}
	if len(l.Errs) > 0 {
		b.WriteString("\nerrors\n")
		for _, e := range l.Errs {
			b.WriteString(e + "\n")
		}
	}
	return b.String()
}

func opt(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%.6f", *v)
}
