package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// startProfile starts a CPU profile into the file named by
// OUTLAST_CPUPROFILE, if set, and returns the function that ends it, which
// also writes a heap profile (of the live objects at the last collection)
// into the file named by OUTLAST_MEMPROFILE, if set. The profiles in
// docs/performance.md are taken this way, on the real command rather than
// on a benchmark that also pays for its own set-up. OUTLAST_TRACE, if set,
// names the file of an execution trace (go tool trace), which shows how
// many goroutines ran at once whatever else the machine was running.
func startProfile() (stop func(), err error) {
	stopTrace, err := startTrace()
	if err != nil {
		return nil, err
	}
	stopCPU, err := startCPUProfile()
	if err != nil {
		stopTrace()
		return nil, err
	}
	return func() {
		stopCPU()
		stopTrace()
		writeHeapProfile()
	}, nil
}

// startCPUProfile starts the CPU profile named by OUTLAST_CPUPROFILE.
func startCPUProfile() (stop func(), err error) {
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

// startTrace starts the execution trace named by OUTLAST_TRACE.
func startTrace() (stop func(), err error) {
	path := os.Getenv("OUTLAST_TRACE")
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("OUTLAST_TRACE: %w", err)
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("OUTLAST_TRACE: %w", err)
	}
	return func() {
		trace.Stop()
		f.Close()
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
