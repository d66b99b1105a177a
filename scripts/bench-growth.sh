#!/usr/bin/env bash
# How the campaign commands' cost grows with the number of runs
# (docs/performance.md, Growth with the number of runs): the first 100 runs
# of the campaign bench-campaign.sh simulates, all N of them, and 10 N (the
# N ten times under other run names and seeds: k3-s501-burst, seed 3501;
# the logs hard-linked, a manifest each). For each size, once: outlast
# ingest of the gateway logs and manifests and of the whole runs, DuckDB's
# read_json of the gateway logs (tools/duckdb/copy.mjs), outlast report and
# compare and DuckDB's window query on the whole runs' dataset. It prints
# wall seconds, CPU milliseconds per run (user + sys) and peak RSS.
#
# Usage: bench-growth.sh BIN. Environment: OUT (bench/out), CAMPAIGN_SEEDS
# (200: N = 400), GOMAXPROCS (2). Run bench-campaign.sh first (it
# simulates the campaign); this needs some 12 GB of disk for the datasets
# at 10,000 runs (the inputs are links).
set -euo pipefail
BIN=${1:?usage: bench-growth.sh BIN}
OUT=${OUT:-bench/out}
SEEDS=${CAMPAIGN_SEEDS:-200}
export GOMAXPROCS=${GOMAXPROCS:-2}
. scripts/bench-lib.sh

base="$OUT/campaign-$SEEDS/runs"
[ -d "$base" ] || { echo "bench-growth: no campaign in $base: run scripts/bench-campaign.sh first" >&2; exit 2; }
g="$OUT/growth"
rm -rf "$g"
mkdir -p "$g"

# link RUN_DIR DEST K GATEWAY_ONLY: a copy of RUN_DIR as run k<K>-<name>
# (K empty: the same name), its logs hard-linked.
link() {
  local d=$1 dest=$2 k=$3 gwonly=$4 n o f
  n=$(basename "$d")
  o="$dest/${k:+k$k-}$n"
  mkdir "$o"
  for f in "$d"/*; do
    case $(basename "$f") in
    run.yaml) ;;
    gateway.jsonl) ln "$f" "$o/" ;;
    *) [ "$gwonly" = 1 ] || ln "$f" "$o/" ;;
    esac
  done
  if [ -z "$k" ]; then
    cp "$d/run.yaml" "$o/"
  else
    awk -v k="$k" '/^run: /{print "run: k" k "-" $2; next} /^seed: /{print "seed: " ($2 + 1000*k); next} {print}' "$d/run.yaml" >"$o/run.yaml"
  fi
}

# time1 CMD...: run once; print "wall_s cpu_s max_rss_kb".
time1() {
  /usr/bin/time -o "$OUT/time.txt" -f '%e %U %S %M' "$@" >/dev/null
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$OUT/time.txt"
}

duck=""
if command -v node >/dev/null && [ -d tools/duckdb/node_modules/@duckdb/node-api ]; then duck=1; fi

row() { printf '%-8s %-34s %9s %12s %10s\n' "$@"; }
nall=$(find "$base" -mindepth 1 -maxdepth 1 -type d | wc -l)
put() { # put STEP "wall cpu rss", for n runs
  local w c m
  read -r w c m <<<"$2"
  row "$n" "$1" "$w" "$(awk -v c="$c" -v n="$n" 'BEGIN{ printf "%.1f", 1000 * c / n }')" "$(mb "$m")"
}
echo
echo "growth: the first 100, all $nall and ten times the $nall runs of $base; once each; $(nproc) cores, GOMAXPROCS=$GOMAXPROCS, DuckDB threads=2"
row runs step "wall s" "CPU ms/run" "peak MB"
for n in 100 "$nall" $((10 * nall)); do
  gw="$g/gw-$n" all="$g/all-$n"
  mkdir -p "$gw" "$all"
  dirs=$(find "$base" -mindepth 1 -maxdepth 1 -type d | sort | head -n "$((n < nall ? n : nall))")
  if [ "$n" -le "$nall" ]; then
    for d in $dirs; do link "$d" "$gw" "" 1; link "$d" "$all" "" 0; done
  else
    for k in $(seq 0 $((n / nall - 1))); do
      for d in $dirs; do link "$d" "$gw" "$k" 1; link "$d" "$all" "$k" 0; done
    done
  fi
  put "ingest, gateway + run.yaml" "$(time1 "$BIN" ingest -q --out "$g/ds-gw-$n" "$gw")"
  put "ingest, whole runs" "$(time1 "$BIN" ingest -q --out "$g/ds-$n" "$all")"
  [ -n "$duck" ] && put "DuckDB read_json, gateway logs" "$(time1 node tools/duckdb/copy.mjs 2 "$gw/*/gateway.jsonl" "$g/duck-$n.parquet")"
  put "outlast report" "$(time1 "$BIN" report -q "$g/ds-$n" --out "$g/report-$n")"
  put "outlast compare --by arm" "$(time1 "$BIN" compare --by arm --ignore trigger "$g/ds-$n")"
  [ -n "$duck" ] && put "DuckDB window query" "$(time1 node tools/duckdb/window.mjs 2 "$g/ds-$n")"
  rm -rf "$g/ds-gw-$n" "$g/duck-$n.parquet" "$g/ds-$n" "$g/report-$n" "$gw" "$all"
done
rm -rf "$g"
