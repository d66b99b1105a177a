//go:build unix

package main

import (
	"os/signal"
	"syscall"
)

// keepWritingPastClosedPipe makes a write to a standard output or error
// whose reader went away ("outlast ingest ... | head -1") fail with EPIPE
// instead of killing outlast: killed, an ingest would leave its runs
// uncommitted, a report half written, because nobody read its summary.
// A command whose output is its data sees the write fail and stops
// (exitCode).
func keepWritingPastClosedPipe() { signal.Ignore(syscall.SIGPIPE) }
