package pipeline

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/textpos"
)

// item is what the test's parser makes of a line: the line and where it
// stood.
type item struct {
	text string
	pos  textpos.Pos
}

// readAll reads input through a Reader cutting chunks of size bytes and
// returns the items as "line:text" with the cut-short flag, and the
// warnings.
func readAll(t *testing.T, input string, size int) (got []string, warnings []string) {
	t.Helper()
	got, warnings, err := readLines(input, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	return got, warnings
}

// readLines is readAll with batches from free (nil: the reader's own),
// returning its error rather than failing a test, for goroutines.
func readLines(input string, size int, free Free[item, struct{}]) (got []string, warnings []string, err error) {
	lr, err := lineio.NewReader(strings.NewReader(input), "in.jsonl")
	if err != nil {
		return nil, nil, err
	}
	r := NewReader(lr, size, free, func() func(*Batch[item, struct{}]) {
		return func(b *Batch[item, struct{}]) {
			b.Parse(func(raw []byte) bool { return len(bytes.TrimSpace(raw)) == 0 },
				func(raw []byte, pos textpos.Pos, it *item) { *it = item{string(raw), pos} })
		}
	})
	defer r.Close()
	for {
		it, cut, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		s := fmt.Sprintf("%d:%s", it.pos.Line, it.text)
		if cut {
			s += " (cut short)"
		}
		got = append(got, s)
	}
	return got, slices.Clone(r.Warnings()), nil
}

// TestReaderOrderAndPositions checks that items come out in input order
// with their own line numbers whatever the chunk size (one line per chunk,
// a few, the whole input), that blank lines and CRLF endings are handled,
// and that only a last line without a newline is cut short.
func TestReaderOrderAndPositions(t *testing.T) {
	var b strings.Builder
	var want []string
	for i := 1; i <= 500; i++ {
		switch {
		case i%97 == 0:
			b.WriteString("\n") // blank
		case i%13 == 0:
			fmt.Fprintf(&b, "line %d\r\n", i)
			want = append(want, fmt.Sprintf("%d:line %d", i, i))
		default:
			fmt.Fprintf(&b, "line %d\n", i)
			want = append(want, fmt.Sprintf("%d:line %d", i, i))
		}
	}
	full := b.String()
	for _, tc := range []struct {
		name  string
		input string
		want  []string
	}{
		{"whole lines", full, want},
		{"last line cut short", full + "line 501", append(slices.Clone(want), "501:line 501 (cut short)")},
		{"trailing blank after cut", full + "   ", want},
	} {
		for _, size := range []int{1, 16, 100, 1 << 20} {
			t.Run(fmt.Sprintf("%s/size=%d", tc.name, size), func(t *testing.T) {
				got, warnings := readAll(t, tc.input, size)
				if !slices.Equal(got, tc.want) {
					t.Errorf("got %d items, want %d; first difference at %d", len(got), len(tc.want), firstDiff(got, tc.want))
				}
				blanks := 5
				if tc.name == "trailing blank after cut" {
					blanks = 6
				}
				wantWarn := fmt.Sprintf("in.jsonl:97: %d blank line(s) ignored (first here)", blanks)
				if len(warnings) != 1 || warnings[0] != wantWarn {
					t.Errorf("warnings %q, want [%q]", warnings, wantWarn)
				}
			})
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestReaderCloseEarly checks that a reader closed before its input ends
// stops its goroutines: after Close (twice, the second a no-op) the
// goroutine count is back where it was before the reader started.
func TestReaderCloseEarly(t *testing.T) {
	before := runtime.NumGoroutine()
	input := strings.Repeat("x\n", 10000)
	lr, err := lineio.NewReader(strings.NewReader(input), "in")
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(lr, 8, nil, func() func(*Batch[item, struct{}]) {
		return func(b *Batch[item, struct{}]) {
			b.Parse(func([]byte) bool { return false }, func(raw []byte, pos textpos.Pos, it *item) { *it = item{string(raw), pos} })
		}
	})
	for range 10 {
		if _, _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	r.Close()
	// Close waits for the parsing goroutines; the test's own helpers may
	// take a moment to exit, so allow a short grace period.
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Close, %d before the reader started", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSharedFreeList reads many inputs at once and one after another
// through readers that share one free list, as the gateway logs of a
// campaign are read: each reader must give its own input's lines, however
// the batches pass between them (go test -race watches the hand-overs).
func TestSharedFreeList(t *testing.T) {
	free := NewFree[item, struct{}]()
	input := func(k int) (string, []string) {
		var b strings.Builder
		var want []string
		for i := 1; i <= 50+k*7; i++ {
			fmt.Fprintf(&b, "input %d line %d\n", k, i)
			want = append(want, fmt.Sprintf("%d:input %d line %d", i, k, i))
		}
		return b.String(), want
	}
	for round := range 3 {
		done := make(chan struct{})
		for k := range 8 {
			go func() {
				defer func() { done <- struct{}{} }()
				in, want := input(k)
				got, _, err := readLines(in, 64, free)
				if err != nil {
					t.Errorf("round %d, input %d: %v", round, k, err)
				} else if !slices.Equal(got, want) {
					t.Errorf("round %d, input %d: got %d lines %.3q, want %d", round, k, len(got), got, len(want))
				}
			}()
		}
		for range 8 {
			<-done
		}
	}
	if len(free) == 0 {
		t.Error("no batch came back to the free list")
	}
}
