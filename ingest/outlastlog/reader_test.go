package outlastlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// specT0 is t=0 of run-format.md's gateway example: its first line,
// ts 1761566401.20, is 1.2 s into the run.
var specT0 = time.Unix(1761566400, 0).UTC()

func newTestReader(t testing.TB, text string, t0 time.Time) *Reader {
	t.Helper()
	lr, err := lineio.NewReader(strings.NewReader(text), "gateway.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(lr, t0)
	t.Cleanup(func() { r.Close() })
	return r
}

// feed reads r to the end, adding each record to c, and returns the
// positioned errors of its lines and records in input order. Any other
// error (a read error, a sink's, ErrKeyCollision) ends it as other.
func feed(r *Reader, c *Collector) (errs []*textpos.ParseError, other error) {
	defer r.Close()
	for rec, err := range readertest.All(r.Next) {
		if err == nil {
			err = c.Add(rec)
		}
		var perr *textpos.ParseError
		switch {
		case err == nil:
		case errors.As(err, &perr):
			errs = append(errs, perr)
		default:
			return errs, err
		}
	}
	return errs, nil
}

// num formats a float rounded to microseconds, so that expectations can be
// written as the decimals a person computes by hand.
func num(f float64) string {
	return strconv.FormatFloat(math.Round(f*1e6)/1e6, 'f', -1, 64)
}

// opt formats *p with format, and a nil p as "-".
func opt[T any](p *T, format func(T) string) string {
	if p == nil {
		return "-"
	}
	return format(*p)
}

func optNum(f *float64) string { return opt(f, num) }
func optInt(i *int64) string   { return opt(i, func(i int64) string { return strconv.FormatInt(i, 10) }) }
func optStr(s *string) string  { return opt(s, func(s string) string { return s }) }

// describe renders a record on one line for comparisons.
func describe(rec Record) string {
	switch {
	case rec.Start != nil:
		s := rec.Start
		return fmt.Sprintf("session_start t=%s %s origin=%s planned=%s context=%s", num(rec.T), s.Session, s.Origin, optInt(s.TurnsPlanned), optInt(s.ContextTokens))
	case rec.End != nil:
		e := rec.End
		return fmt.Sprintf("session_end t=%s %s %s done=%s", num(rec.T), e.Session, e.Status, optInt(e.TurnsDone))
	case rec.Turn != nil:
		tr := rec.Turn
		return fmt.Sprintf("turn t=%s %s/%d ready=%s sent=%s first=%s prompt=%d cached=%d output=%d %s",
			num(tr.DoneS), tr.Session, tr.Turn, optNum(tr.ReadyS), optNum(tr.SentS), optNum(tr.FirstTokenS),
			tr.PromptTokens, tr.CachedTokens, tr.OutputTokens, tr.Status)
	case rec.Event != nil:
		return describeEvent(*rec.Event)
	}
	return fmt.Sprintf("unknown %s t=%s", rec.Ev, num(rec.T))
}

func describeEvent(e schema.Event) string {
	var turn *int64
	if e.Turn != nil {
		v := int64(*e.Turn)
		turn = &v
	}
	return fmt.Sprintf("%s t=%s session=%s turn=%s trigger=%s phase=%s rate=%s controller=%s demand=%s limit=%s active=%s parked=%s waiting=%s extra=%s",
		e.Kind, num(e.TS), optStr(e.Session), optInt(turn), optStr(e.TriggerKind), optStr(e.Phase), optNum(e.ArrivalRate),
		optStr(e.Controller), optNum(e.DemandTokens), optNum(e.Limit), optInt(e.Active), optInt(e.Parked), optInt(e.Waiting), e.Extra)
}

func TestReaderRecords(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		// The first five lines of run-format.md's example.
		{"spec session_start", `{"ts":1761566401.20,"ev":"session_start","session":"b-0001","origin":"base","turns_planned":25,"context_tokens":6144}`,
			"session_start t=1.2 b-0001 origin=base planned=25 context=6144"},
		{"spec turn plain", `{"ts":1761566409.85,"ev":"turn","session":"b-0001","turn":0,"ready_ts":1761566401.20,"sent_ts":1761566401.21,"first_token_ts":1761566402.40,"prompt_tokens":6144,"cached_tokens":2048,"output_tokens":300}`,
			"turn t=9.85 b-0001/0 ready=1.2 sent=1.21 first=2.4 prompt=6144 cached=2048 output=300 ok"},
		{"spec park", `{"ts":1761566415.02,"ev":"park","session":"b-0001","turn":1}`,
			"park t=15.02 session=b-0001 turn=1 trigger=- phase=- rate=- controller=- demand=- limit=- active=- parked=- waiting=- extra={}"},
		{"spec resume", `{"ts":1761566470.55,"ev":"resume","session":"b-0001","turn":1}`,
			"resume t=70.55 session=b-0001 turn=1 trigger=- phase=- rate=- controller=- demand=- limit=- active=- parked=- waiting=- extra={}"},
		{"spec turn usage null details", `{"ts":1761566478.10,"ev":"turn","session":"b-0001","turn":1,"ready_ts":1761566415.02,"sent_ts":1761566470.55,"usage":{"prompt_tokens":7468,"completion_tokens":300,"prompt_tokens_details":null}}`,
			"turn t=78.1 b-0001/1 ready=15.02 sent=70.55 first=- prompt=7468 cached=0 output=300 ok"},
		{"spec trigger", `{"ts":1761566900.00,"ev":"trigger","kind":"burst","phase":"start","extra_rate":0.0525}`,
			`trigger t=500 session=- turn=- trigger=burst phase=start rate=- controller=- demand=- limit=- active=- parked=- waiting=- extra={"extra_rate":0.0525}`},
		{"spec session_end", `{"ts":1761567600.40,"ev":"session_end","session":"b-0001","status":"done","turns_done":25}`,
			"session_end t=1200.4 b-0001 done done=25"},

		{"usage with cached details (vLLM order)", `{"ts":1761566410,"ev":"turn","session":"s","turn":2,"usage":{"prompt_tokens":2304,"total_tokens":2432,"completion_tokens":128,"prompt_tokens_details":{"cached_tokens":2048}}}`,
			"turn t=10 s/2 ready=- sent=- first=- prompt=2304 cached=2048 output=128 ok"},
		{"usage without details (SGLang)", `{"ts":1761566410,"ev":"turn","session":"s","turn":0,"usage":{"prompt_tokens":2304,"total_tokens":2432,"completion_tokens":128,"reasoning_tokens":0}}`,
			"turn t=10 s/0 ready=- sent=- first=- prompt=2304 cached=0 output=128 ok"},
		{"usage cached null", `{"ts":1761566410,"ev":"turn","session":"s","turn":0,"usage":{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":null}}}`,
			"turn t=10 s/0 ready=- sent=- first=- prompt=10 cached=0 output=1 ok"},
		{"both forms agreeing", `{"ts":1761566410,"ev":"turn","session":"s","turn":0,"prompt_tokens":10,"output_tokens":1,"cached_tokens":4,"usage":{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":4}}}`,
			"turn t=10 s/0 ready=- sent=- first=- prompt=10 cached=4 output=1 ok"},
		{"cached null flat, absent in usage", `{"ts":1761566410,"ev":"turn","session":"s","turn":0,"cached_tokens":null,"usage":{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":null}}`,
			"turn t=10 s/0 ready=- sent=- first=- prompt=10 cached=0 output=1 ok"},
		{"cached 0 flat, null in usage", `{"ts":1761566410,"ev":"turn","session":"s","turn":0,"cached_tokens":0,"usage":{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":null}}}`,
			"turn t=10 s/0 ready=- sent=- first=- prompt=10 cached=0 output=1 ok"},
		{"cached null is 0", `{"ts":1761566410,"ev":"turn","session":"s","turn":0,"prompt_tokens":6144,"cached_tokens":null,"output_tokens":300}`,
			"turn t=10 s/0 ready=- sent=- first=- prompt=6144 cached=0 output=300 ok"},
		{"cached absent is 0, status error", `{"ts":1761566410,"ev":"turn","session":"s","turn":3,"prompt_tokens":6144,"output_tokens":0,"status":"error"}`,
			"turn t=10 s/3 ready=- sent=- first=- prompt=6144 cached=0 output=0 error"},
		{"RFC 3339 times with zone and fraction", `{"ts":"2025-10-27T12:00:09.850Z","ev":"turn","session":"s","turn":0,"ready_ts":"2025-10-27T14:00:01.2+02:00","sent_ts":1761566401.21,"first_token_ts":null,"prompt_tokens":1,"output_tokens":1}`,
			"turn t=9.85 s/0 ready=1.2 sent=1.21 first=- prompt=1 cached=0 output=1 ok"},
		{"whole counts as floats (Python's json)", `{"ts":1761566410,"ev":"turn","session":"s","turn":2.0,"prompt_tokens":6144.0,"cached_tokens":4e3,"output_tokens":-0.0}`,
			"turn t=10 s/2 ready=- sent=- first=- prompt=6144 cached=4000 output=0 ok"},
		{"RFC 3339's other forms: lowercase t and z, a space (Python's str(datetime))", `{"ts":"2025-10-27t12:00:09.850z","ev":"turn","session":"s","turn":0,"ready_ts":"2025-10-27 14:00:01.2+02:00","prompt_tokens":1,"output_tokens":1}`,
			"turn t=9.85 s/0 ready=1.2 sent=- first=- prompt=1 cached=0 output=1 ok"},
		{"exponent ts, before t0", `{"ts":1.7615663996e9,"ev":"rate","arrival_rate":0.01}`,
			"rate t=-0.4 session=- turn=- trigger=- phase=- rate=0.01 controller=- demand=- limit=- active=- parked=- waiting=- extra={}"},
		{"default origin, escapes, unknown keys ignored", ` { "ts" : 1761566400 , "ev" : "session_start" , "session" : "a\u00e9\"b" , "note" : [1, {"x": null}] } `,
			`session_start t=0 aé"b origin=base planned=- context=-`},
		{"session_end defaults", `{"ts":1761566400.5,"ev":"session_end","session":"s"}`,
			"session_end t=0.5 s done done=-"},
		{"control", `{"ts":1761566600,"ev":"control","controller":"budgeter","demand_tokens":312000.5,"limit":380000,"active":12,"parked":3,"waiting":0,"low":0.75}`,
			`control t=200 session=- turn=- trigger=- phase=- rate=- controller=budgeter demand=312000.5 limit=380000 active=12 parked=3 waiting=0 extra={"low":0.75}`},
		{"control minimal", `{"ts":1761566600,"ev":"control","controller":"aimd","limit":null}`,
			"control t=200 session=- turn=- trigger=- phase=- rate=- controller=aimd demand=- limit=- active=- parked=- waiting=- extra={}"},
		{"trigger extra sorted and compacted, foreign known key kept", `{"ts":1761566580,"ev":"trigger","phase":"end","kind":"flush","z":{"b": 1, "a": [true, false]},"status":"ok","a":"x"}`,
			`trigger t=180 session=- turn=- trigger=flush phase=end rate=- controller=- demand=- limit=- active=- parked=- waiting=- extra={"a":"x","status":"ok","z":{"b":1,"a":[true,false]}}`},
		{"unknown kind", `{"ts":1761566410,"ev":"heartbeat","inflight":"many"}`, "unknown heartbeat t=10"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestReader(t, tc.line+"\n", specT0)
			rec, err := r.Next()
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			if got := describe(rec); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if rec.Pos != (textpos.Pos{File: "gateway.jsonl", Line: 1}) || string(rec.Raw) != tc.line {
				t.Errorf("Pos %v Raw %q, want gateway.jsonl:1 and the line", rec.Pos, rec.Raw)
			}
			if _, err := r.Next(); err != io.EOF {
				t.Errorf("second Next: %v, want io.EOF", err)
			}
		})
	}
}

func TestReaderErrors(t *testing.T) {
	const turn = `"ts":1761566410,"ev":"turn","session":"s","turn":0`
	tests := []struct {
		name, line, want string
	}{
		{"not JSON", `hello`, `gateway.jsonl:1:1: not JSON: want an object starting with '{', got 'h'`},
		{"JSON but not an object", `[1,2]`, `gateway.jsonl:1:1: not JSON: want an object starting with '{', got '['`},
		{"text after the object", `{"ts":1,"ev":"x"} x`, `gateway.jsonl:1:19: not JSON: unexpected 'x' after the object`},
		{"unclosed", `{"ts":1,"ev":"x"`, `gateway.jsonl:1:17: not JSON: the object is not closed`},
		{"bad literal", `{"ts":1,"ev":"x","a":tru}`, `gateway.jsonl:1:22: not JSON: want true`},
		{"bad number", `{"ts":01,"ev":"x"}`, `gateway.jsonl:1:8: not JSON: want ',' or '}' after the value of "ts", got '1'`},
		{"control character", "{\"ts\":1,\"ev\":\"a\tb\"}", `gateway.jsonl:1:16: not JSON: control character 0x09 in a string`},
		{"missing ts", `{"ev":"turn"}`, `gateway.jsonl:1: missing required field ts`},
		{"missing ev", `{"ts":1}`, `gateway.jsonl:1: missing required field ev`},
		{"missing session", `{"ts":1,"ev":"session_start"}`, `gateway.jsonl:1: missing required field session`},
		{"missing prompt", `{` + turn + `,"output_tokens":1}`, `gateway.jsonl:1: missing required field prompt_tokens (or a usage object)`},
		{"missing output", `{` + turn + `,"prompt_tokens":1}`, `gateway.jsonl:1: missing required field output_tokens (or a usage object)`},
		{"missing turn", `{"ts":1,"ev":"park","session":"s"}`, `gateway.jsonl:1: missing required field turn`},
		{"missing completion", `{` + turn + `,"usage":{"prompt_tokens":5}}`, `gateway.jsonl:1:61: missing required field usage.completion_tokens`},
		{"missing phase", `{"ts":1,"ev":"trigger","kind":"burst"}`, `gateway.jsonl:1: missing required field phase`},
		{"missing controller", `{"ts":1,"ev":"control","limit":3}`, `gateway.jsonl:1: missing required field controller`},
		{"missing arrival_rate", `{"ts":1,"ev":"rate"}`, `gateway.jsonl:1: missing required field arrival_rate`},
		{"cached > prompt", `{` + turn + `,"prompt_tokens":6144,"cached_tokens":6145,"output_tokens":1}`, `gateway.jsonl:1:90: cached_tokens 6145 exceeds prompt_tokens 6144`},
		{"usage cached > prompt", `{` + turn + `,"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":6}}}`,
			`gateway.jsonl:1:143: usage.prompt_tokens_details.cached_tokens 6 exceeds usage.prompt_tokens 5`},
		{"negative prompt", `{` + turn + `,"prompt_tokens":-5,"output_tokens":1}`, `gateway.jsonl:1:69: prompt_tokens: want a non-negative integer, got -5`},
		{"negative usage", `{` + turn + `,"usage":{"prompt_tokens":5,"completion_tokens":-1}}`, `gateway.jsonl:1:100: usage.completion_tokens: want a non-negative integer, got -1`},
		{"negative turn", `{"ts":1,"ev":"park","session":"s","turn":-1}`, `gateway.jsonl:1:42: turn: want a non-negative integer, got -1`},
		{"negative active", `{"ts":1,"ev":"control","controller":"c","active":-3}`, `gateway.jsonl:1:50: active: want a non-negative integer, got -3`},
		{"negative rate", `{"ts":1,"ev":"rate","arrival_rate":-0.1}`, `gateway.jsonl:1:36: arrival_rate: want a non-negative number, got -0.1`},
		{"string count", `{` + turn + `,"prompt_tokens":"6144","output_tokens":1}`, `gateway.jsonl:1:69: prompt_tokens: want an integer, got a string "6144"`},
		{"fractional count", `{` + turn + `,"prompt_tokens":12.5,"output_tokens":1}`, `gateway.jsonl:1:69: prompt_tokens: want an integer, got 12.5`},
		{"negative whole count as a float", `{` + turn + `,"prompt_tokens":-1.0,"output_tokens":1}`, `gateway.jsonl:1:69: prompt_tokens: want a non-negative integer, got -1.0`},
		{"count past 2^53", `{` + turn + `,"prompt_tokens":1e300,"output_tokens":1}`, `gateway.jsonl:1:69: prompt_tokens: want an integer, got 1e300`},
		{"fractional turn", `{"ts":1,"ev":"park","session":"s","turn":1.5}`, `gateway.jsonl:1:42: turn: want an integer, got 1.5`},
		{"numeric session", `{"ts":1,"ev":"session_start","session":42}`, `gateway.jsonl:1:40: session: want a string, got 42`},
		{"empty session", `{"ts":1,"ev":"session_start","session":""}`, `gateway.jsonl:1:40: session: want a non-empty string`},
		{"bool ts", `{"ts":true,"ev":"x"}`, `gateway.jsonl:1:7: ts: want Unix seconds or an RFC 3339 time, got true`},
		{"bad time string", `{` + turn + `,"ready_ts":"yesterday","prompt_tokens":1,"output_tokens":1}`, `gateway.jsonl:1:64: ready_ts: want Unix seconds or an RFC 3339 time, got "yesterday"`},
		{"usage not an object", `{` + turn + `,"usage":"x"}`, `gateway.jsonl:1:61: usage: want an object, got a string "x"`},
		{"details not an object", `{` + turn + `,"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_tokens_details":7}}`, `gateway.jsonl:1:126: usage.prompt_tokens_details: want an object or null, got 7`},
		{"forms disagree", `{` + turn + `,"prompt_tokens":6144,"output_tokens":1,"usage":{"prompt_tokens":6100,"completion_tokens":1}}`, `gateway.jsonl:1:69: prompt_tokens 6144 disagrees with usage.prompt_tokens 6100`},
		// Cached tokens given both flat and in usage: a contradiction is
		// refused at the flat value, whichever comes first on the line.
		{"cached forms disagree", `{` + turn + `,"cached_tokens":2048,"usage":{"prompt_tokens":6144,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":1024}}}`,
			`gateway.jsonl:1:69: cached_tokens 2048 disagrees with usage.prompt_tokens_details.cached_tokens 1024`},
		{"cached forms disagree, usage first", `{` + turn + `,"usage":{"prompt_tokens":6144,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":1024}},"cached_tokens":2048}`,
			`gateway.jsonl:1:169: cached_tokens 2048 disagrees with usage.prompt_tokens_details.cached_tokens 1024`},
		{"cached given flat, not in usage", `{` + turn + `,"cached_tokens":2048,"usage":{"prompt_tokens":6144,"completion_tokens":1}}`,
			`gateway.jsonl:1:69: cached_tokens 2048 disagrees with usage, which gives no prompt_tokens_details.cached_tokens (nothing cached)`},
		{"cached given flat, null in usage", `{` + turn + `,"cached_tokens":2048,"usage":{"prompt_tokens":6144,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":null}}}`,
			`gateway.jsonl:1:69: cached_tokens 2048 disagrees with usage, which gives no prompt_tokens_details.cached_tokens (nothing cached)`},
		{"cached null flat, given in usage", `{` + turn + `,"cached_tokens":null,"usage":{"prompt_tokens":6144,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":1024}}}`,
			`gateway.jsonl:1:69: cached_tokens null (nothing cached) disagrees with usage.prompt_tokens_details.cached_tokens 1024`},
		{"bad status", `{` + turn + `,"prompt_tokens":1,"output_tokens":1,"status":"timeout"}`, `gateway.jsonl:1:98: status: want ok, error or aborted, got "timeout"`},
		{"bad end status", `{"ts":1,"ev":"session_end","session":"s","status":"ok"}`, `gateway.jsonl:1:51: status: want done or aborted, got "ok"`},
		{"bad phase", `{"ts":1,"ev":"trigger","kind":"burst","phase":"middle"}`, `gateway.jsonl:1:47: phase: want start or end, got "middle"`},
		{"duplicate key", `{"ts":1,"ev":"turn","ts":2}`, `gateway.jsonl:1:26: duplicate key "ts"`},
		{"duplicate extra key", `{"ts":1,"ev":"rate","arrival_rate":1,"x":1,"x":2}`, `gateway.jsonl:1:48: duplicate key "x"`},
		{"turn too large", `{"ts":1,"ev":"park","session":"s","turn":3000000000}`, `gateway.jsonl:1:42: turn: 3000000000 is too large`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// A good line after the bad one shows that the reader goes on.
			r := newTestReader(t, tc.line+"\n"+`{"ts":1761566400,"ev":"session_start","session":"next"}`+"\n", specT0)
			_, err := r.Next()
			var perr *textpos.ParseError
			if !errors.As(err, &perr) {
				t.Fatalf("Next: %v (%T), want a *textpos.ParseError", err, err)
			}
			if err.Error() != tc.want {
				t.Errorf("got  %s\nwant %s", err, tc.want)
			}
			if string(perr.Raw) != tc.line {
				t.Errorf("Raw = %q, want the line", perr.Raw)
			}
			// A line that is not JSON is of kind textpos.ErrSyntax, which
			// a cut-short last line explains; a bad field is not.
			if syntax := strings.Contains(tc.want, "not JSON"); errors.Is(err, textpos.ErrSyntax) != syntax {
				t.Errorf("errors.Is(err, textpos.ErrSyntax) = %v, want %v", !syntax, syntax)
			}
			rec, err := r.Next()
			if err != nil || rec.Start == nil || rec.Start.Session != "next" || rec.Pos.Line != 2 {
				t.Errorf("after the error: %v, %v; want the session_start of line 2", describe(rec), err)
			}
			if w := r.Warnings(); len(w) != 0 {
				t.Errorf("warnings %q, want none", w)
			}
		})
	}
}

func TestReaderLastLine(t *testing.T) {
	const good = `{"ts":1761566400,"ev":"session_start","session":"a"}`
	tests := []struct {
		name, text string
		errs       []string
		warnings   []string
		records    int
	}{
		{"cut short without newline is a warning", good + "\n" + `{"ts":1761566401,"ev":"tu`, nil,
			[]string{`gateway.jsonl:2: the last line is cut short (not JSON: the string is not closed): the run was stopped mid-write; line ignored`}, 1},
		{"cut short with a newline is an error", good + "\n" + `{"ts":1761566401,"ev":"tu` + "\n",
			[]string{`gateway.jsonl:2:23: not JSON: the string is not closed`}, nil, 1},
		{"cut short in the middle is an error", `{"ts":1761566401,"ev":"tu` + "\n" + good, []string{`gateway.jsonl:1:23: not JSON: the string is not closed`}, nil, 1},
		{"complete last line without newline is fine", good + "\n" + good, nil, nil, 2},
		{"bad but complete JSON last line is an error", good + "\n" + `{"ts":1}`, []string{`gateway.jsonl:2: missing required field ev`}, nil, 1},
		{"blank lines are counted", "\n" + good + "\n  \n\n", nil, []string{`gateway.jsonl:1: 3 blank line(s) ignored (first here)`}, 1},
		{"empty file", "", nil, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestReader(t, tc.text, specT0)
			var errs []string
			records := 0
			for _, err := range readertest.All(r.Next) {
				if err != nil {
					errs = append(errs, err.Error())
					continue
				}
				records++
			}
			if fmt.Sprint(errs) != fmt.Sprint(tc.errs) {
				t.Errorf("errors %q, want %q", errs, tc.errs)
			}
			if fmt.Sprint(r.Warnings()) != fmt.Sprint(tc.warnings) {
				t.Errorf("warnings %q, want %q", r.Warnings(), tc.warnings)
			}
			if records != tc.records {
				t.Errorf("%d records, want %d", records, tc.records)
			}
		})
	}
}

func TestTimeWithFractionalT0(t *testing.T) {
	t0 := time.Date(2026, 10, 27, 12, 0, 0, 250_000_000, time.UTC)
	r := newTestReader(t, `{"ts":1793102401.5,"ev":"x"}`+"\n"+`{"ts":"2026-10-27T12:00:00Z","ev":"x"}`+"\n", t0)
	for _, want := range []string{"1.25", "-0.25"} {
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if num(rec.T) != want {
			t.Errorf("T = %s, want %s", num(rec.T), want)
		}
	}
}

// TestReaderAllocations keeps the hot path lean: a turn record costs its
// box, and a session id is interned after its first line.
func TestReaderAllocations(t *testing.T) {
	line := []byte(`{"ts":1761566409.85,"ev":"turn","session":"b-0001","turn":0,"ready_ts":1761566401.20,"sent_ts":1761566401.21,"first_token_ts":1761566402.40,"usage":{"prompt_tokens":6144,"total_tokens":6444,"completion_tokens":300,"prompt_tokens_details":{"cached_tokens":2048}}}` + "\n")
	text := bytes.Repeat(line, 2000)
	r := newTestReader(t, string(text), specT0)
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("%v allocations per turn line, want at most 1", allocs)
	}
}

// TestUnknownTriggerKind checks that a trigger record of a kind run.yaml
// does not know is kept as written (the gateway logged what it did) and
// warned of once per kind, at the kind's value in its first record, with
// its count.
func TestUnknownTriggerKind(t *testing.T) {
	lines := []string{
		`{"ts":1761566900,"ev":"trigger","kind":"tool-storm","phase":"start","extra_rate":0.05}`,
		`{"ts":1761566910,"ev":"trigger","kind":"burst","phase":"start"}`,
		`{"ts":1761566920,"ev":"trigger","phase":"end","kind":"tool-storm"}`,
		`{"ts":1761566930,"ev":"trigger","kind":"none","phase":"end"}`,
		`{"ts":1761566940,"ev":"trigger","kind":"Flush","phase":"end"}`,
	}
	r := newTestReader(t, strings.Join(lines, "\n")+"\n", specT0)
	var kinds []string
	for rec, err := range readertest.All(r.Next) {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, *rec.Event.TriggerKind)
	}
	if got, want := fmt.Sprint(kinds), "[tool-storm burst tool-storm none Flush]"; got != want {
		t.Errorf("kinds %s, want %s", got, want)
	}
	want := []string{
		`gateway.jsonl:5:40: trigger kind "Flush" is not one of run.yaml's (burst, flush, rate-change, mix-shift or none): 1 record kept as written`,
		`gateway.jsonl:1:40: trigger kind "tool-storm" is not one of run.yaml's (burst, flush, rate-change, mix-shift or none): 2 records kept as written, the first here`,
	}
	if got := r.Warnings(); !slices.Equal(got, want) {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
