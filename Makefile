# outlast — see README.md. Every target works on a machine with only Go.
GO      ?= go
OUT     ?= demo
BIN     := bin/outlast
FUZZTIME ?= 10s

.PHONY: build test test-all demo bench fuzz vet clean

# build records the commit in the binary (outlast --version); go build does
# too in a git checkout, unless -buildvcs=false or a git worktree stops it.
COMMIT := $(shell git describe --always --dirty --abbrev=40 --exclude='*' 2>/dev/null)
build:
	$(GO) build -ldflags "-X main.commit=$(COMMIT)" -o $(BIN) ./cmd/outlast

# test is make vet and one pass over every test: the packages whose code runs
# goroutines under the race detector, the others without it, both at once
# (scripts/test.sh lists them); each test runs once, the whole-experiment
# simulations and the headless-Chromium checks of the report included (a
# few sweeps, and the Prometheus server test, on a sample of their cases,
# whole in test-all: slowtest.All), and results are cached, so a second
# make test redoes only what a change touched. The README gives its time,
# and test-all's.
#
# test-all is the full matrix, as CI runs it (.ci/run): every package under
# -race, then without it the packages whose tests skip under -race, with the
# long tests selected too (OUTLAST_TEST=all).
#
# A slow test of yours: internal/slowtest.
#   slowtest.SkipUnderRace(t, why)  simulates whole experiments: make test
#                                   runs its package without -race, make
#                                   test-all runs it without -race after
#                                   the race pass ([race] skip in a script)
#   slowtest.Long(t, why)           a scale test or a sweep: only make
#                                   test-all (OUTLAST_TEST=all) runs it
# Both skip in -short mode (go test -short ./... while editing). Chromium
# (browser tests) and DuckDB (read-backs) skip when missing, except in CI
# (CI=true), where .ci/run installs them.
test: vet
	GO=$(GO) ./scripts/test.sh quick

test-all: vet
	GO=$(GO) ./scripts/test.sh all

# vet checks gofmt, then runs go vet and staticcheck, pinned and built
# from the module proxy (no binary download).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt -w these files:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

# demo simulates a reduced experiment matrix, ingests it and reports it,
# into OUT: a new or empty directory, or an earlier demo's (replaced).
demo: build
	./scripts/demo.sh $(BIN) $(OUT)

bench: build
	./scripts/bench.sh $(BIN)

# fuzz runs each parser's fuzz target for FUZZTIME.
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

# clean removes bin/ and the demo's OUT (only if a demo wrote it).
clean:
	rm -rf bin
	./scripts/demo.sh --clean $(OUT)
