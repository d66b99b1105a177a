package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile starts a CPU profile into the file named by
// OUTLAST_CPUPROFILE, if set, and returns the function that ends it. The
// profiles in docs/performance.md are taken this way, on the real command
// rather than on a benchmark that also pays for its own set-up.
func startProfile() (stop func(), err error) {
	path := os.Getenv("OUTLAST_CPUPROFILE")
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("OUTLAST_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("OUTLAST_CPUPROFILE: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
