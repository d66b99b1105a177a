package promscrape

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
)

// t0 is the T0 of the small inputs: Unix second 1000.
var t0 = time.Unix(1000, 0).UTC()

// fixtures are the two real-format runs and their started_at.
var fixtures = []struct {
	run string
	t0  time.Time
}{
	{"vllm-2026", readertest.T0},
	{"sglang-2026", time.Date(2026, 7, 20, 10, 15, 0, 0, time.UTC)},
}

// fixtureData returns the metrics.prom of the fixture run.
func fixtureData(t testing.TB, run string) []byte {
	t.Helper()
	return readertest.FixtureFile(t, run, "metrics.prom")
}

// reader is what the tests read through: Reader or TimedReader.
type reader interface {
	Next() (schema.EngineSample, error)
	Info() Info
	Close()
}

// read reads every sample of input, named name, through the reader open
// returns, returning one text line per sample or error, and the final Info.
func read(t testing.TB, name, input string, open func(*lineio.Reader) reader) ([]string, Info) {
	t.Helper()
	lr, err := lineio.NewReader(strings.NewReader(input), name)
	if err != nil {
		t.Fatal(err)
	}
	r := open(lr)
	defer r.Close()
	return readertest.Scrapes(t, r.Next), r.Info()
}

// readAll reads input, "# scrape"-marked scrapes, with Reader.
func readAll(t testing.TB, input string, start time.Time) ([]string, Info) {
	t.Helper()
	return read(t, "metrics.prom", input, func(lr *lineio.Reader) reader { return NewReader(lr, Options{T0: start}) })
}

// readTimed reads input, exposition with timestamps in the given form,
// with TimedReader.
func readTimed(t testing.TB, input, form string, start time.Time) ([]string, Info) {
	t.Helper()
	return read(t, "metrics.prom", input, func(lr *lineio.Reader) reader { return NewTimedReader(lr, form, Options{T0: start}) })
}

// checkRead reads input, "# scrape"-marked scrapes with T0 at t0, checks
// its lines (FormatScrape, or "error: " and the error) against want and
// returns the final Info.
func checkRead(t *testing.T, input string, want ...string) Info {
	t.Helper()
	got, info := readAll(t, input, t0)
	check(t, got, want)
	return info
}

// checkTimed reads input, exposition with timestamps in the given form
// counted from tsT0, checks its lines against want and returns the final
// Info.
func checkTimed(t *testing.T, input, form string, want ...string) Info {
	t.Helper()
	got, info := readTimed(t, input, form, tsT0)
	check(t, got, want)
	return info
}

func formatInfo(in Info) string {
	return fmt.Sprintf("info: engine=%q kv_pool=%d scrapes=%d resets=%d first=%v last=%v unrecognised=%d",
		in.Engine, in.KVPoolTokens, in.Scrapes, in.CounterResets, in.FirstS, in.LastS, in.Unrecognised)
}

func check(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
