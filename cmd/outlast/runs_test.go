package main

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/outlast-dev/outlast/schema"
)

// TestRunsTextFits writes the text table of runs with long names, a
// trigger and control with parameters, an engine every run shares: each
// line fits 120 columns, the parameters are key=value, not JSON, and what
// every run shares is said once above the table. A narrow table is
// written whole.
func TestRunsTextFits(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	pool := int64(400000)
	var rows []runRow
	for _, arm := range []string{"none", "budgeter", "admission-cap", "aimd"} {
		r := schema.Run{Run: "recovery-campaign-2026-12-s501-" + arm, Experiment: "recovery-llama-3.1-8b-h100", Arm: arm,
			EngineName: "vllm", EngineVersion: "0.20.2rc1.dev253", KVPoolTokens: &pool, ArrivalRate: f(0.04),
			TriggerKind: "rate-change", TriggerStartS: f(1200), TriggerEndS: f(1200), TriggerExtraRate: f(0.06),
			TriggerRateAfter: f(0.006), TriggerExtra: `{"burst_end_s":900,"burst_start_s":600}`,
			ControlKind: arm, ControlStartS: f(1200), ControlParams: `{"high":0.95,"label":"a b","low":0.75}`}
		rows = append(rows, runRow{Run: r.Run, Experiment: r.Experiment, Arm: arm, Engine: r.EngineName,
			EngineVersion: r.EngineVersion, KVPoolTokens: &pool, ArrivalRate: r.ArrivalRate,
			Sessions: 160, Turns: 3796, triggerText: triggerText(&r), controlText: paramsText(r.ControlString())})
	}
	if got, want := rows[1].triggerText, "rate-change @1200s →0.006/s +0.06/s burst_end_s=900 burst_start_s=600"; got != want {
		t.Errorf("trigger text %q, want %q", got, want)
	}
	if got, want := rows[1].controlText, "budgeter@1200s high=0.95 label=a b low=0.75"; got != want {
		t.Errorf("control text %q, want %q", got, want)
	}
	var b bytes.Buffer
	if err := writeRunsText(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > runsWidth {
			t.Errorf("%d columns: %s", n, line)
		}
	}
	if !strings.HasPrefix(out, "every run: ") || !strings.Contains(out, "engine vllm 0.20.2rc1.dev253") || strings.Contains(out, "{") {
		t.Errorf("want the shared values said once and no JSON:\n%s", out)
	}
	if !strings.Contains(out, "\nrecovery-campaign-2026-12-s501-admission-cap ") && !strings.Contains(out, "…") {
		t.Errorf("a run name too long for the table is neither whole nor shortened:\n%s", out)
	}

	narrow := rows[:1]
	narrow[0].Run, narrow[0].Experiment, narrow[0].triggerText, narrow[0].controlText = "r1", "e", "none", "none"
	b.Reset()
	if err := writeRunsText(&b, narrow); err != nil {
		t.Fatal(err)
	}
	want := "RUN  EXPERIMENT  ARM   ENGINE                 C     λ     TRIGGER  CONTROL  SESSIONS  TURNS  HIT\n" +
		"r1   e           none  vllm 0.20.2rc1.dev253  400K  0.04  none     none     160       3796   0.000\n"
	if b.String() != want {
		t.Errorf("narrow table:\n%s\nwant\n%s", b.String(), want)
	}
}
