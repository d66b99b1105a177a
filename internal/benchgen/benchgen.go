// Package benchgen writes large, deterministic run directories for the
// ingest benchmarks (make bench): a run.yaml and a gateway.jsonl of
// session_start, turn and session_end records in the shapes of
// docs/run-format.md, as big as asked. The same size and seed always give
// the same bytes, and nothing is downloaded.
package benchgen

import (
	"bufio"
	"container/heap"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// StartedAt is t=0 of every generated run.
var StartedAt = time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC)

// Options sizes a generated gateway log.
type Options struct {
	Bytes int64  // stop once the log has at least this many bytes
	Seed  uint64 // random stream; the same seed gives the same bytes
	// Disorder, when > 0, swaps that many pairs of turn lines far apart,
	// so that the turns are no longer in completion order.
	Disorder int
}

// Stats describes what was written.
type Stats struct {
	Bytes    int64
	Sessions int
	Turns    int
	Lines    int
}

// WriteRunDir writes dir/run.yaml and dir/gateway.jsonl.
func WriteRunDir(dir, run string, opt Options) (Stats, error) {
	return writeRunDir(dir, "gateway.jsonl", opt, WriteGateway, func(st Stats) string { return Manifest(run, st) })
}

// Manifest returns a run.yaml for a generated run; its duration covers the
// log written (st).
func Manifest(run string, st Stats) string {
	dur := max(60, st.Sessions/arrivalsPerSecond+600)
	return fmt.Sprintf(`format: outlast-run/1
run: %s
experiment: bench
design: observe
arm: none
started_at: %s
duration_s: %d
engine:
  name: vllm
  version: 0.28.0
  model: Qwen/Qwen3-8B
  prefix_caching: true
  kv_pool_tokens: 400000
workload:
  arrival_rate: %d
  turns: 25
`, run, StartedAt.Format(time.RFC3339), dur, arrivalsPerSecond)
}

// arrivalsPerSecond is the generated session arrival rate: high, so that a
// large log does not span an implausible number of days.
const arrivalsPerSecond = 20

// session is one generated session between its records.
type session struct {
	id     string
	origin string
	arrive int64 // the time of its session_start, milliseconds since t=0
	next   int64 // the time of its next record, milliseconds since t=0
	turn   int
	turns  int
	prompt int64
}

type byNext []*session

func (h byNext) Len() int { return len(h) }
func (h byNext) Less(i, j int) bool {
	if h[i].next != h[j].next {
		return h[i].next < h[j].next
	}
	return h[i].id < h[j].id
}
func (h byNext) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *byNext) Push(x any)   { *h = append(*h, x.(*session)) }
func (h *byNext) Pop() any {
	old := *h
	s := old[len(old)-1]
	*h = old[:len(old)-1]
	return s
}

// WriteGateway writes gateway records in time order until opt.Bytes are
// written and every started session has ended.
func WriteGateway(w io.Writer, opt Options) (Stats, error) {
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6f75746c617374))
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	var st Stats
	var h byNext
	var buf []byte
	nextArrival := int64(0)
	var lateTurns [][]byte // for Disorder: turn lines held back
	emit := func(b []byte) {
		bw.Write(b)
		st.Lines++
	}
	for {
		stopping := cw.n+int64(bw.Buffered()) >= opt.Bytes
		if stopping && len(h) == 0 {
			break
		}
		if !stopping && (len(h) == 0 || nextArrival <= h[0].next) {
			st.Sessions++
			s := &session{
				id:     fmt.Sprintf("s-%07d", st.Sessions),
				origin: "base",
				arrive: nextArrival,
				next:   nextArrival + 500 + rng.Int64N(3000),
				turns:  5 + rng.IntN(40),
				prompt: 6144,
			}
			if rng.IntN(5) == 0 {
				s.origin = "burst"
			}
			buf = buf[:0]
			buf = append(buf, `{"ts":"`...)
			buf = appendTime(buf, nextArrival)
			buf = append(buf, `","ev":"session_start","session":"`...)
			buf = append(buf, s.id...)
			buf = append(buf, `","origin":"`...)
			buf = append(buf, s.origin...)
			buf = append(buf, `","turns_planned":`...)
			buf = strconv.AppendInt(buf, int64(s.turns), 10)
			buf = append(buf, `,"context_tokens":6144}`+"\n"...)
			emit(buf)
			heap.Push(&h, s)
			nextArrival += 1 + rng.Int64N(2*1000/arrivalsPerSecond)
			continue
		}
		s := h[0]
		if s.turn == s.turns {
			buf = buf[:0]
			buf = append(buf, `{"ts":"`...)
			buf = appendTime(buf, s.next)
			buf = append(buf, `","ev":"session_end","session":"`...)
			buf = append(buf, s.id...)
			buf = append(buf, `","status":"done","turns_done":`...)
			buf = strconv.AppendInt(buf, int64(s.turns), 10)
			buf = append(buf, "}\n"...)
			emit(buf)
			heap.Pop(&h)
			continue
		}
		done := s.next
		// A turn is sent after its session arrived, even the first, which
		// completes 0.5–3.5 s after: the reader warns of times out of order.
		sent := max(done-400-rng.Int64N(4000), s.arrive+20)
		ready := sent - rng.Int64N(20)
		first := sent + 50 + rng.Int64N(300)
		out := int64(100 + rng.IntN(400))
		cached := s.prompt - 1024 - rng.Int64N(512)
		if s.turn == 0 {
			cached = 2048
		}
		buf = buf[:0]
		buf = append(buf, `{"ts":"`...)
		buf = appendTime(buf, done)
		buf = append(buf, `","ev":"turn","session":"`...)
		buf = append(buf, s.id...)
		buf = append(buf, `","turn":`...)
		buf = strconv.AppendInt(buf, int64(s.turn), 10)
		buf = append(buf, `,"ready_ts":"`...)
		buf = appendTime(buf, ready)
		buf = append(buf, `","sent_ts":"`...)
		buf = appendTime(buf, sent)
		buf = append(buf, `","first_token_ts":"`...)
		buf = appendTime(buf, first)
		buf = append(buf, `","prompt_tokens":`...)
		buf = strconv.AppendInt(buf, s.prompt, 10)
		buf = append(buf, `,"cached_tokens":`...)
		buf = strconv.AppendInt(buf, cached, 10)
		buf = append(buf, `,"output_tokens":`...)
		buf = strconv.AppendInt(buf, out, 10)
		buf = append(buf, `,"status":"ok"}`+"\n"...)
		st.Turns++
		if opt.Disorder > 0 && len(lateTurns) < opt.Disorder && s.turn > 0 && rng.IntN(50) == 0 {
			// Held back and written much later: far beyond any reorder window.
			lateTurns = append(lateTurns, append([]byte(nil), buf...))
		} else {
			emit(buf)
		}
		s.prompt += out + 1024
		s.turn++
		s.next = done + 1000 + rng.Int64N(8000)
		heap.Fix(&h, 0)
	}
	for _, b := range lateTurns {
		emit(b)
	}
	if err := bw.Flush(); err != nil {
		return st, err
	}
	st.Bytes = cw.n
	return st, nil
}

// appendTime appends t=0 plus ms as RFC 3339 with milliseconds.
func appendTime(b []byte, ms int64) []byte {
	t := StartedAt.Add(time.Duration(ms) * time.Millisecond)
	return t.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
}

// writeRunDir writes dir/file with write, then dir/run.yaml with the
// manifest made from what write reports.
func writeRunDir(dir, file string, opt Options, write func(io.Writer, Options) (Stats, error), manifest func(Stats) string) (Stats, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Stats{}, err
	}
	f, err := os.Create(filepath.Join(dir, file))
	if err != nil {
		return Stats{}, err
	}
	defer f.Close()
	st, err := write(f, opt)
	if err != nil {
		return st, err
	}
	if err := f.Close(); err != nil {
		return st, err
	}
	return st, os.WriteFile(filepath.Join(dir, "run.yaml"), []byte(manifest(st)), 0o644)
}

// countingWriter counts the bytes written and keeps the first error.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

func (c *countingWriter) WriteString(s string) { c.Write([]byte(s)) }
