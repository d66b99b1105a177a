package cputime

import (
	"runtime"
	"testing"
)

func TestProcessGrowsWithWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("CPU time not read here")
	}
	start := Process()
	x := 0
	for i := range 50_000_000 {
		x ^= i * i
	}
	if d := Process() - start; d <= 0 {
		t.Fatalf("CPU time did not grow over a busy loop (%d)", x)
	}
}
