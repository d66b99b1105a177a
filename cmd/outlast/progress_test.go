package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestProgressPastItsCount draws a terminal bar for more steps than it was
// given, as reading a dataset that another ingest grows does: the bar is
// full, not a panic.
func TestProgressPastItsCount(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, label: "report ds", n: 2, tty: true, on: true}
	for i := 1; i <= 4; i++ {
		p.stepDone(i, "r")
	}
	if !strings.Contains(b.String(), "["+strings.Repeat("=", 30)+"] 4/2 r") {
		t.Errorf("bar %q", b.String())
	}
}
