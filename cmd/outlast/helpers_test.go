package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// mustRunOutlast runs outlast in-process with args, its output discarded,
// and fails the test with its stderr if it returns an error.
func mustRunOutlast(t *testing.T, args ...string) {
	t.Helper()
	var stderr bytes.Buffer
	if err := run(io.Discard, &stderr, args); err != nil {
		t.Fatalf("outlast %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
}
