//go:build !unix

package cputime

import "time"

// Process returns -1: the CPU time is not read on this system.
func Process() time.Duration { return -1 }
