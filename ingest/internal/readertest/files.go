package readertest

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin on machines without a zone database

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/internal/golden"
)

// The inputs the readers' tests share: the fixture files, the YAML files
// of their tables, the t=0 and zone of their records, and the random
// edits through which a fast path is compared with the general way.

// ReadFile returns the contents of the file at path, the parts of the path
// joined; the test fails at once when it cannot be read.
func ReadFile(t testing.TB, path ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(path...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FixtureFile returns the contents of file in the fixture run (FixturePath).
func FixtureFile(t testing.TB, run, file string) []byte {
	t.Helper()
	return ReadFile(t, FixturePath(run, file))
}

// Golden compares got with the golden file testdata/<name>.golden of the
// test's package (golden.Check).
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".golden"), got)
}

// GoldenWarnings compares text followed by the reader's warnings, as the
// load generators' golden files end, with testdata/<name>.golden.
func GoldenWarnings(t testing.TB, name, text string, warnings []string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(text)
	b.WriteString("\nwarnings\n")
	for _, w := range warnings {
		b.WriteString(w + "\n")
	}
	Golden(t, name, []byte(b.String()))
}

// decodeYAMLFile decodes the YAML file at path into v, and fails the test
// if the file cannot be read, is not YAML, or has a field v lacks (a
// misspelt key would otherwise go unchecked).
func decodeYAMLFile(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// T0 is the t=0 that the readers' tests share: 2026-10-27T12:00:00Z, Unix
// 1793102400, the vllm-2026 fixture's started_at, from which the 2026
// fixtures and the tests' own records are timed.
var T0 = time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC)

// Berlin returns the Europe/Berlin zone, in which the engine-log readers'
// tests write wall-clock stamps an hour or two ahead of UTC.
func Berlin(t testing.TB) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// CheckBerlin reads a winter and a summer line stamped on Berlin's wall
// clock 5 s after their T0 (a UTC time): each 5 s after T0 in the Berlin
// zone, one hour (CET) or two (CEST) ahead of UTC, and the summer line
// 2 h 5 s after T0 when the log's zone is left at UTC.
func (e Engine) CheckBerlin(t *testing.T, winterT0, winter, summerT0, summer string) {
	berlin := Berlin(t)
	e.CheckZones(t, []ZoneCase{
		{T0: winterT0, Line: winter, Loc: berlin, Want: 5},
		{T0: summerT0, Line: summer, Loc: berlin, Want: 5},
		{T0: summerT0, Line: summer, Want: 7205},
	})
}

// Mutate returns a copy of b with one to three random edits (a byte
// deleted, one of alphabet inserted or put in place of a byte), never
// empty: the mutations through which a fast path is compared with the
// general way it stands in for.
func Mutate(rng *rand.Rand, b, alphabet []byte) []byte {
	b = append([]byte(nil), b...)
	for range 1 + rng.IntN(3) {
		if len(b) == 0 {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
			continue
		}
		i := rng.IntN(len(b))
		switch rng.IntN(3) {
		case 0:
			b = append(b[:i], b[i+1:]...)
		case 1:
			b = append(b[:i], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[i:]...)...)
		default:
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
	}
	if len(b) == 0 {
		b = append(b, alphabet[rng.IntN(len(alphabet))])
	}
	return b
}
