#!/usr/bin/env bash
# make bench: the Go benchmarks of every package, with MB/s where the
# benchmark sets bytes. Usage: bench.sh BIN
set -euo pipefail
go test -run '^$' -bench . -benchmem -count 1 ./...
