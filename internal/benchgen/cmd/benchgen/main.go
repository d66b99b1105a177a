// Command benchgen writes a deterministic run directory for make bench:
//
//	go run ./internal/benchgen/cmd/benchgen -mb 658 -out bench/out/gw658
//	go run ./internal/benchgen/cmd/benchgen -format guidellm -mb 1000 -out bench/out/guidellm1000
//
// It prints the bytes, sessions and turns written.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/outlast-dev/outlast/internal/benchgen"
)

func main() {
	mb := flag.Int64("mb", 64, "size of gateway.jsonl in megabytes (10^6 bytes)")
	out := flag.String("out", "", "run directory to write")
	seed := flag.Uint64("seed", 1, "random seed")
	disorder := flag.Int("disorder", 0, "turn lines to move far out of completion order")
	format := flag.String("format", "outlast", "gateway log to write: outlast (gateway.jsonl) or guidellm (benchmarks.json)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "benchgen: -out is required")
		os.Exit(2)
	}
	write := benchgen.WriteRunDir
	switch *format {
	case "outlast":
	case "guidellm":
		write = benchgen.WriteGuideLLMRunDir
	default:
		fmt.Fprintf(os.Stderr, "benchgen: -format %q: want outlast or guidellm\n", *format)
		os.Exit(2)
	}
	st, err := write(*out, filepath.Base(*out), benchgen.Options{Bytes: *mb * 1e6, Seed: *seed, Disorder: *disorder})
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d bytes, %d sessions, %d turns\n", *out, st.Bytes, st.Sessions, st.Turns)
}
