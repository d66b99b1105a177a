package rundir

import (
	"hash/maphash"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/benchgen"
	"github.com/outlast-dev/outlast/schema"
)

// ingestBoth writes dir into two datasets, read into memory and streamed,
// and checks that they hold the same bytes.
func ingestBoth(t *testing.T, dir string, opt Options) (*Result, *Result) {
	t.Helper()
	memRoot, streamRoot := filepath.Join(t.TempDir(), "mem"), filepath.Join(t.TempDir(), "stream")
	mem := stageRuns(t, memRoot, false, opt, dir)[0]
	streamed := stageRuns(t, streamRoot, true, opt, dir)[0]
	a, b := datasetFiles(t, memRoot), datasetFiles(t, streamRoot)
	if len(a) != len(schema.Tables) {
		t.Fatalf("%d files in memory, want %d", len(a), len(schema.Tables))
	}
	sameFiles(t, a, b, "streamed against in memory")
	if streamed.Turns != int64(len(mem.Data.Turns)) || len(streamed.Data.Turns) != 0 {
		t.Errorf("Stream counted %d turns and kept %d, want %d counted and none kept", streamed.Turns, len(streamed.Data.Turns), len(mem.Data.Turns))
	}
	if streamed.Sessions != int64(len(mem.Data.Sessions)) || len(streamed.Data.Sessions) != 0 {
		t.Errorf("Stream counted %d sessions and kept %d, want %d counted and none kept", streamed.Sessions, len(streamed.Data.Sessions), len(mem.Data.Sessions))
	}
	return mem, streamed
}

func TestStreamSameBytesAsInMemory(t *testing.T) {
	for _, name := range fixtureRuns {
		t.Run(name, func(t *testing.T) { ingestBoth(t, fixture(name), Options{Version: "test"}) })
	}
	t.Run("generated, out of order", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "gen")
		st, err := benchgen.WriteRunDir(dir, "gen", benchgen.Options{Bytes: 3e6, Seed: 7, Disorder: 500})
		if err != nil {
			t.Fatal(err)
		}
		mem, _ := ingestBoth(t, dir, Options{Version: "test"})
		if len(mem.Data.Turns) != st.Turns || len(mem.Data.Sessions) != st.Sessions {
			t.Errorf("read %d turns, %d sessions; generated %d, %d", len(mem.Data.Turns), len(mem.Data.Sessions), st.Turns, st.Sessions)
		}
	})
}

// TestStreamRepeatedTurn checks the message of a repeated (session,
// turn) when streaming, where the first line is looked up again: strict
// stops with it, lenient keeps every repeat with its own first line.
func TestStreamRepeatedTurn(t *testing.T) {
	dir := copyRun(t, "vllm-2026")
	gw := filepath.Join(dir, "gateway.jsonl")
	b, _ := os.ReadFile(gw)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var turnLines []int // 1-based lines of turn records
	for i, l := range lines {
		if strings.Contains(l, `"ev":"turn"`) {
			turnLines = append(turnLines, i+1)
		}
	}
	first, second := turnLines[0], turnLines[3]
	appendLine(t, gw, lines[first-1])
	appendLine(t, gw, `not json`)
	appendLine(t, gw, lines[second-1])
	n := len(lines)

	err := streamErr(t, dir, Options{Version: "test"})
	want := "gateway.jsonl:" + itoa(n+1) + ": session "
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "(first at line "+itoa(first)+")") {
		t.Fatalf("strict error = %v, want %s... (first at line %d)", err, want, first)
	}

	_, res := ingestBoth(t, dir, Options{Version: "test", Lenient: true})
	if len(res.Rejects) != 3 {
		t.Fatalf("%d rejects, want 3: %+v", len(res.Rejects), res.Rejects)
	}
	for i, wantFirst := range []int{first, 0, second} {
		r := res.Rejects[i]
		if wantFirst != 0 && !strings.HasSuffix(r.Error(), "is repeated (first at line "+itoa(wantFirst)+")") {
			t.Errorf("reject %d: %v, want the first at line %d", i, r, wantFirst)
		}
	}
	mem := read(t, dir, Options{Version: "test", Lenient: true})
	for i := range mem.Rejects {
		if mem.Rejects[i].Error() != res.Rejects[i].Error() {
			t.Errorf("reject %d: streamed %q, in memory %q", i, res.Rejects[i], mem.Rejects[i])
		}
	}
}

// afterEndRun is the vllm-2026 fixture with a session that gets a turn and
// a park after its session_end (which has no turns_done), then records
// appended by extra.
func afterEndRun(t *testing.T, extra ...string) string {
	t.Helper()
	return appendedRun(t, append([]string{
		`{"ts":"2026-10-27T12:05:00Z","ev":"session_start","session":"z-1","origin":"burst"}`,
		`{"ts":"2026-10-27T12:05:01Z","ev":"turn","session":"z-1","turn":0,"prompt_tokens":10,"output_tokens":1}`,
		`{"ts":"2026-10-27T12:05:02Z","ev":"session_end","session":"z-1","status":"aborted"}`,
		`{"ts":"2026-10-27T12:05:03Z","ev":"turn","session":"z-1","turn":1,"prompt_tokens":10,"output_tokens":1}`,
		`{"ts":"2026-10-27T12:05:04Z","ev":"park","session":"z-1","turn":2}`,
	}, extra...)...)
}

// TestStreamAfterEnd checks a turn after its session's end when
// streaming: the session row, already passed on, is fixed to count it, and
// the files are those of the in-memory path; also when every id shares one
// hash, so that the run is read again with exact ids.
func TestStreamAfterEnd(t *testing.T) {
	dir := afterEndRun(t)
	check := func(t *testing.T) {
		mem, _ := ingestBoth(t, dir, Options{Version: "test"})
		for _, s := range mem.Data.Sessions {
			if s.Session == "z-1" && s.TurnsDone != 2 {
				t.Errorf("z-1 turns_done %d, want 2", s.TurnsDone)
			}
		}
	}
	t.Run("hashed ids", check)
	defer func() { sessionKey = nil }()
	sessionKey = func(string) uint64 { return 1 }
	t.Run("every id one hash", check)
}

// TestStreamKeyCollision checks that a turn for a session never started,
// whose id shares a hash with an ended one, is still an error, found by
// verifying the match and reading the run again with exact ids; and that a
// repeated session_start after the end names the first line.
func TestStreamKeyCollision(t *testing.T) {
	defer func() { sessionKey = nil }()
	sessionKey = func(s string) uint64 {
		if s == "ghost" {
			s = "z-1"
		}
		return maphash.String(testSeed, s)
	}
	// Nothing else comes for z-1 after its end: only reading its
	// session_start again shows that ghost is another id.
	dir := appendedRun(t,
		`{"ts":"2026-10-27T12:05:00Z","ev":"session_start","session":"z-1"}`,
		`{"ts":"2026-10-27T12:05:02Z","ev":"session_end","session":"z-1","turns_done":0}`,
		`{"ts":"2026-10-27T12:05:05Z","ev":"turn","session":"ghost","turn":0,"prompt_tokens":10,"output_tokens":1}`)
	n := strings.Count(readFile(t, filepath.Join(dir, "gateway.jsonl")), "\n")
	err := streamErr(t, dir, Options{Version: "test"})
	want := "gateway.jsonl:" + itoa(n) + `: turn for session "ghost", which has no session_start before this line`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("strict error %v, want %s", err, want)
	}
	_, res := ingestBoth(t, dir, Options{Version: "test", Lenient: true})
	if len(res.Rejects) != 1 || !strings.Contains(res.Rejects[0].Error(), `"ghost", which has no session_start`) {
		t.Errorf("rejects %+v, want the ghost turn", res.Rejects)
	}

	dir = afterEndRun(t, `{"ts":"2026-10-27T12:05:06Z","ev":"session_start","session":"z-1"}`)
	n = strings.Count(readFile(t, filepath.Join(dir, "gateway.jsonl")), "\n")
	err = streamErr(t, dir, Options{Version: "test"})
	want = "gateway.jsonl:" + itoa(n) + `: session "z-1" starts again (first session_start at line ` + itoa(n-5) + ")"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("strict error %v, want %s", err, want)
	}
}

var testSeed = maphash.MakeSeed()

// TestStreamRepeatedSession checks the messages of a repeated
// session_start and session_end after the session's end when streaming,
// where the first lines are looked up again: strict stops with the first,
// lenient keeps both with the lines the in-memory path names.
func TestStreamRepeatedSession(t *testing.T) {
	again := []string{
		`{"ts":"2026-10-27T12:05:06Z","ev":"session_start","session":"z-1"}`,
		`{"ts":"2026-10-27T12:05:07Z","ev":"session_end","session":"z-1","status":"done"}`,
	}
	for i, wantErr := range []string{
		`: session "z-1" starts again (first session_start at line `,
		`: session "z-1" ends again (first session_end at line `,
	} {
		dir := afterEndRun(t, again[i:]...)
		n := strings.Count(readFile(t, filepath.Join(dir, "gateway.jsonl")), "\n")
		first := n - len(again[i:]) - 4 // afterEndRun's session_start
		if i == 1 {
			first += 2 // its session_end
		}
		err := streamErr(t, dir, Options{Version: "test"})
		want := "gateway.jsonl:" + itoa(n-len(again[i:])+1) + wantErr + itoa(first) + ")"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("strict error %v, want %s", err, want)
		}
	}

	dir := afterEndRun(t, again...)
	n := strings.Count(readFile(t, filepath.Join(dir, "gateway.jsonl")), "\n")
	mem, res := ingestBoth(t, dir, Options{Version: "test", Lenient: true})
	want := []string{
		`session "z-1" starts again (first session_start at line ` + itoa(n-6) + ")",
		`session "z-1" ends again (first session_end at line ` + itoa(n-4) + ")",
	}
	if len(res.Rejects) != 2 || len(mem.Rejects) != 2 {
		t.Fatalf("rejects %+v streamed, %+v in memory; want 2", res.Rejects, mem.Rejects)
	}
	for i, w := range want {
		if res.Rejects[i].Err.Error() != w || mem.Rejects[i].Err.Error() != w {
			t.Errorf("reject %d: streamed %q, in memory %q, want %q", i, res.Rejects[i].Err, mem.Rejects[i].Err, w)
		}
	}
}
