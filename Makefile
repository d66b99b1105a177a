# outlast — see README.md. Every target works on a machine with only Go.
GO      ?= go
OUT     ?= demo
BIN     := bin/outlast
FUZZTIME ?= 10s

.PHONY: build test demo bench fuzz vet clean

build:
	$(GO) build -o $(BIN) ./cmd/outlast

# test vets, then runs every package's tests with the race detector and in
# shuffled order (golden files, fuzz seeds, round trips, the CLI scripts,
# DuckDB read-backs and the headless-Chromium report checks; .ci/run
# installs chromium and DuckDB, and in CI a test that misses them fails).
# The tests that simulate whole experiments skip under -race (minutes
# there, and no concurrency of their own: internal/slowtest), so a second
# pass runs every test again without it.
test: vet
	$(GO) test -race -shuffle=on ./...
	$(GO) test -shuffle=on ./...

# vet runs go vet and staticcheck, pinned and built from the module proxy
# (no binary download).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
vet:
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

# demo simulates a reduced experiment matrix, ingests it and reports it.
demo: build
	./scripts/demo.sh $(BIN) $(OUT)

bench: build
	./scripts/bench.sh $(BIN)

# fuzz runs each parser's fuzz target for FUZZTIME.
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

clean:
	rm -rf bin $(OUT)
