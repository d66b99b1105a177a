package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/slowtest"
)

// runOutlast runs outlast in-process and returns its output and exit status.
func runOutlast(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = exitCode(run(&o, &e, args), &e)
	return o.String(), e.String(), code
}

// TestReplayNotReproduced replays a run the model cannot reproduce,
// written as another program might write it: a light load whose gateway
// logged a hit ratio of 0.2 throughout (each turn's cached tokens cut to a
// fifth), with nothing in the run to make a cache miss. Replay says so on
// standard error, gives the variants no verdict and exits 1; with
// --ungrounded it replays them, labelled not grounded, and still exits 1.
func TestReplayNotReproduced(t *testing.T) {
	slowtest.SkipUnderRace(t, "simulates and replays a run")
	dir := t.TempDir()
	runs, ds := filepath.Join(dir, "runs"), filepath.Join(dir, "ds")
	mustRunOutlast(t, "simulate", "-q", "--design", "paired", "--burst", "none", "--lambda", "0.02", "--duration", "30m", "--seed", "601", "-o", runs)
	gw := filepath.Join(runs, "s601-burst", "gateway.jsonl")
	data, err := os.ReadFile(gw)
	if err != nil {
		t.Fatal(err)
	}
	prompt := regexp.MustCompile(`"prompt_tokens":(\d+),"cached_tokens":\d+`)
	data = prompt.ReplaceAllFunc(data, func(m []byte) []byte {
		p, _ := strconv.Atoi(string(prompt.FindSubmatch(m)[1]))
		return []byte(`"prompt_tokens":` + strconv.Itoa(p) + `,"cached_tokens":` + strconv.Itoa(p/5/16*16))
	})
	if err := os.WriteFile(gw, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mustRunOutlast(t, "ingest", "-q", "-o", ds, runs)

	stdout, stderr, code := runOutlast("replay", ds, "--run", "s601-burst", "--seeds", "4", "--pool", "2x", "--control", "budgeter@600", "-o", filepath.Join(dir, "r"))
	if code != 1 {
		t.Errorf("exit status %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"outlast: replay: run s601-burst is not grounded: the as-is replay does not reproduce it: 0 of 11 as-is seeds reproduce the run",
		"0 end persistent like it, 0 with an end hit ratio within 0.15 of its 0.20",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, want := range []string{
		"as-is replay against the observed run: NOT REPRODUCED",
		"Not grounded: the run's collapse (or health) is not the mechanism the model knows",
		"not grounded, no verdict: pool-800000, budgeter-600s (--ungrounded replays them anyway, labelled so)",
		"wrote 11 run directories (as-is × 11 seeds) into",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "VARIANT") {
		t.Errorf("variants printed without --ungrounded:\n%s", stdout)
	}

	stdout, stderr, code = runOutlast("replay", ds, "--run", "s601-burst", "--seeds", "4", "--pool", "2x", "--ungrounded", "-o", filepath.Join(dir, "u"))
	if code != 1 || !strings.Contains(stderr, "is not grounded") || !regexp.MustCompile(`(?m)^pool-800000 \[not grounded\] +4 `).MatchString(stdout) {
		t.Errorf("--ungrounded: exit status %d\n%s%s", code, stdout, stderr)
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "u", "s601-burst-replay-s2-pool-800000", "run.yaml"))
	if err != nil || !bytes.Contains(manifest, []byte(`grounded: false, grounding: "not reproduced: 0 of 11`)) {
		t.Errorf("--ungrounded: the variant's manifest does not say it is not grounded (%v):\n%s", err, manifest)
	}
}

// TestReplayRefusesWithoutEngineData checks that a run without cached-token
// reporting is refused before any simulation, exit status 1, and replayed
// with --ungrounded.
func TestReplayRefusesWithoutEngineData(t *testing.T) {
	slowtest.SkipUnderRace(t, "replays a run")
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	mustRunOutlast(t, "ingest", "-q", "-o", ds, filepath.Join("..", "..", "fixtures", "real", "guidellm-0.6.1"))
	out := filepath.Join(dir, "r")
	stdout, stderr, code := runOutlast("replay", ds, "--run", "guidellm-0.6.1", "--seeds", "2", "-o", out)
	if code != 1 || !strings.Contains(stderr, "is not grounded, refused: too little to ground a replay in: it reports no cached tokens") {
		t.Errorf("exit status %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused replay wrote %s (%v)", out, err)
	}
	stdout, stderr, code = runOutlast("replay", ds, "--run", "guidellm-0.6.1", "--seeds", "2", "--ungrounded", "-o", out)
	if code != 1 || !strings.Contains(stdout, "as-is replay: NOT GROUNDED, refused") || !strings.Contains(stdout, "wrote 11 run directories") {
		t.Errorf("--ungrounded: exit status %d\n%s%s", code, stdout, stderr)
	}
}

// TestReplayGrounded replays a simulated run that collapsed after its
// burst: the gate grounds it, the variants get verdicts, exit status 0.
func TestReplayGrounded(t *testing.T) {
	slowtest.SkipUnderRace(t, "simulates and replays a run")
	dir := t.TempDir()
	runs, ds := filepath.Join(dir, "runs"), filepath.Join(dir, "ds")
	mustRunOutlast(t, "simulate", "-q", "--design", "recovery", "--control", "none", "--seed", "503", "--duration", "30m", "-o", runs)
	mustRunOutlast(t, "ingest", "-q", "-o", ds, runs)
	stdout, stderr, code := runOutlast("replay", ds, "--run", "recovery-s503-none", "--seeds", "2", "--control", "budgeter@1200", "-o", filepath.Join(dir, "r"))
	if code != 0 || stderr != "" {
		t.Errorf("exit status %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"as-is replay against the observed run: reproduced, so the variants below are grounded in it", "\nbudgeter-1200s  "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}
