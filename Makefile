# outlast — see README.md. Every target works on a machine with only Go.
GO      ?= go
OUT     ?= demo
BIN     := bin/outlast
FUZZTIME ?= 10s

.PHONY: build test demo bench fuzz vet clean

build:
	$(GO) build -o $(BIN) ./cmd/outlast

# test runs every package's tests (golden files, fuzz seeds, round trips,
# the CLI scripts, and the headless-Chromium report check when chromium is
# installed; .ci/run installs it).
test:
	$(GO) vet ./...
	$(GO) test ./...

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
