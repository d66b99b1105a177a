package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile starts a CPU profile into the file named by
// OUTLAST_CPUPROFILE, if set, and returns the function that ends it, which
// also writes a heap profile (of the live objects at the last collection)
// into the file named by OUTLAST_MEMPROFILE, if set. The profiles in
// docs/performance.md are taken this way, on the real command rather than
// on a benchmark that also pays for its own set-up.
func startProfile() (stop func(), err error) {
	path := os.Getenv("OUTLAST_CPUPROFILE")
	if path == "" {
		return writeHeapProfile, nil
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
		writeHeapProfile()
	}, nil
}

// writeHeapProfile writes the heap profile named by OUTLAST_MEMPROFILE.
func writeHeapProfile() {
	path := os.Getenv("OUTLAST_MEMPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "outlast: OUTLAST_MEMPROFILE:", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		fmt.Fprintln(os.Stderr, "outlast: OUTLAST_MEMPROFILE:", err)
	}
}
