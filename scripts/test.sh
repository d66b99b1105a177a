#!/usr/bin/env bash
# make test and make test-all: see the Makefile's comment on them.
# Usage: test.sh quick|all
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}

# The packages whose code runs goroutines or whose functions others run on
# theirs (the parallel readers): make test runs them under the race
# detector. A package added here must hold no test that skips under -race
# (slowtest.SkipUnderRace, a script's [race] skip): make test would never
# run that test. sim, replay and report (seed, variant and section pools)
# are race-checked by make test-all, since their whole-experiment tests run
# without -race; so is ingest/rundir, which ingest/campaign's race-checked
# tests run concurrently.
RACE_PKGS="./dataset ./ingest/campaign ./ingest/internal/... ./ingest/aiperf ./ingest/outlastlog ./ingest/promscrape ./internal/atomicfile"

# raceSkipping lists the packages holding a test that skips under -race.
raceSkipping() {
  grep -rlE --include='*_test.go' --include='*.txtar' 'slowtest\.SkipUnderRace\(|^\[race\] skip' . |
    sed -E 's#/testdata/.*##; t; s#/[^/]*$##' | sort -u | xargs "$GO" list
}

case "${1:-quick}" in
quick)
  race=$("$GO" list $RACE_PKGS)
  if both=$(comm -12 <(echo "$race" | sort) <(raceSkipping | sort)) && [ -n "$both" ]; then
    echo "scripts/test.sh: these RACE_PKGS hold tests that skip under -race, which make test would never run: $both" >&2
    exit 2
  fi
  plain=$("$GO" list ./... | grep -vxF "$race")
  # One pass: both sets at once, each test once, results cached. -vet=off:
  # make vet, which make test runs first, vets every package.
  "$GO" test -vet=off -race $race &
  r=$!
  "$GO" test -vet=off $plain &
  p=$!
  rs=0 ps=0
  wait $r || rs=$?
  wait $p || ps=$?
  exit $(( rs || ps ))
  ;;
all)
  # The whole matrix: every package under -race, the long tests too; then
  # the packages whose tests skip under -race, without it.
  export OUTLAST_TEST=all
  "$GO" test -vet=off -race -timeout 30m ./...
  "$GO" test -vet=off -timeout 30m $(raceSkipping)
  ;;
*)
  echo "usage: test.sh quick|all" >&2
  exit 2
  ;;
esac
