//go:build !unix

package main

// keepWritingPastClosedPipe does nothing: there is no SIGPIPE to ignore.
func keepWritingPastClosedPipe() {}
