package readertest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// TurnSource is a load generator's reader (aiperf, guidellm, inferenceperf) as
// the tests see it.
type TurnSource = loadgen.Source

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
	c.Read(src, nil, func(err error) error {
		out.Errs = append(out.Errs, err.Error())
		var pe *textpos.ParseError
		if !errors.As(err, &pe) {
			return err
		}
		return nil
	})
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

// Ptr formats an optional value for messages and golden files: the value,
// or null.
func Ptr[T any](v *T) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}

// Drain reads src to its end and counts its turns; any error stops it.
func Drain(src TurnSource) (int, error) {
	n := 0
	for {
		_, err := src.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// BenchRead benchmarks read on data, in bytes of input per second: read
// reads every turn of the input it is given and returns how many.
func BenchRead(b *testing.B, data []byte, read func(io.Reader) (int, error)) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n, err := read(bytes.NewReader(data))
		if err != nil || n == 0 {
			b.Fatalf("%d turns, %v", n, err)
		}
	}
}
