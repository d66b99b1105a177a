#!/usr/bin/env bash
# The campaign section of make bench (docs/performance.md): a campaign of
# simulated 60-minute paired runs (outlast simulate --design paired,
# CAMPAIGN_SEEDS seeds, two runs each, on CAMPAIGN_ENGINE: vllm, whose log
# prints stats every ten seconds, or sglang, whose log prints every batch
# and is half a run's bytes; deterministic, nothing downloaded),
# then, each whole process timed with /usr/bin/time (best wall clock of
# REPEAT rounds, largest peak RSS; in each round the tools take turns, so
# that the file system's drift over minutes falls on both), side by side:
#
#   ingest of the runs' gateway logs and manifests only, and of the whole
#   run directories (gateway log, engine log, scrapes), beside DuckDB's
#   read_json('runs/*/gateway.jsonl') -> one zstd Parquet file, 2 threads
#   (tools/duckdb/copy.mjs); MB/s is the input's bytes over wall seconds;
#
#   outlast report and outlast compare (burst against no-burst, paired by
#   seed) on the ingested dataset, beside DuckDB's per-run window query
#   over the same dataset: 5-minute hit ratios and sessions in the system
#   per minute (tools/duckdb/window.mjs), 2 threads.
#
# Usage: bench-campaign.sh BIN. Environment: OUT (bench/out), REPEAT (3),
# CAMPAIGN_SEEDS (200: 400 runs), CAMPAIGN_ENGINE (vllm), GOMAXPROCS (2).
set -euo pipefail
BIN=${1:?usage: bench-campaign.sh BIN}
OUT=${OUT:-bench/out}
REPEAT=${REPEAT:-3}
SEEDS=${CAMPAIGN_SEEDS:-200}
ENGINE=${CAMPAIGN_ENGINE:-vllm}
export GOMAXPROCS=${GOMAXPROCS:-2}
. scripts/bench-lib.sh

c="$OUT/campaign-$SEEDS"
[ "$ENGINE" = vllm ] || c="$OUT/campaign-$ENGINE-$SEEDS"
runs="$c/runs"
gw="$c/gateway-only"
mkdir -p "$c"

# The campaign, simulated once (the time is outlast simulate on every core).
sim_s=""
if [ ! -f "$c/simulated" ]; then
  echo "== simulating $((2 * SEEDS)) runs into $runs" >&2
  rm -rf "$runs" "$gw"
  /usr/bin/time -o "$OUT/time.txt" -f '%e %M' "$BIN" simulate --design paired --engine "$ENGINE" --seeds "$SEEDS" --duration 60m --out "$runs" >/dev/null
  read -r sim_s _ <"$OUT/time.txt"
  echo "$sim_s" >"$c/simulated"
fi
sim_s=$(cat "$c/simulated")
# The same runs with their gateway logs and manifests only (hard links).
if [ ! -d "$gw" ]; then
  for d in "$runs"/*/; do
    n=$(basename "$d")
    mkdir -p "$gw/$n"
    ln "$d/run.yaml" "$d/gateway.jsonl" "$gw/$n/"
  done
fi
nruns=$(find "$runs" -mindepth 1 -maxdepth 1 -type d | wc -l)
gw_bytes=$(find "$gw" -name gateway.jsonl -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f\n", s }')
run_bytes=$(find "$runs" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f\n", s }')

duck=""
if command -v node >/dev/null && [ -d tools/duckdb/node_modules/@duckdb/node-api ]; then
  duck=1
else
  echo "== DuckDB skipped: no node, or tools/duckdb not installed (cd tools/duckdb && npm install --no-package-lock)" >&2
fi

# The tools take turns, round by round, each keeping its best round
# (keep, in bench-lib.sh).
for ((round = 1; round <= REPEAT; round++)); do
  echo "== round $round of $REPEAT: outlast ingest of the $nruns runs' gateway logs and manifests ($gw_bytes bytes of logs), of the whole run directories ($run_bytes bytes)${duck:+, DuckDB read_json of the gateway logs -> COPY parquet zstd, threads=2}" >&2
  keep gwi < <(REPEAT=1 FRESH="$c/ds-gw" measure "$BIN" ingest -q --out "$c/ds-gw" "$gw")
  keep all < <(REPEAT=1 FRESH="$c/ds" measure "$BIN" ingest -q --out "$c/ds" "$runs")
  if [ -n "$duck" ]; then
    keep dcopy < <(REPEAT=1 measure node tools/duckdb/copy.mjs 2 "$gw/*/gateway.jsonl" "$c/duckdb.parquet")
  fi
done
for ((round = 1; round <= REPEAT; round++)); do
  echo "== round $round of $REPEAT: outlast report and compare on the dataset${duck:+, the DuckDB per-run window query over it, threads=2}" >&2
  keep rep < <(REPEAT=1 FRESH="$c/report" measure "$BIN" report "$c/ds" --out "$c/report")
  keep cmp < <(REPEAT=1 measure "$BIN" compare --by arm --ignore trigger "$c/ds")
  if [ -n "$duck" ]; then
    keep dwin < <(REPEAT=1 measure node tools/duckdb/window.mjs 2 "$c/ds")
  fi
done
# One more gateway-only ingest, profiled, for what bounds it.
rm -rf "$c/ds-gw-prof"
OUTLAST_CPUPROFILE="$c/gw.prof" "$BIN" ingest -q --out "$c/ds-gw-prof" "$gw" >/dev/null
mkdir -p "$OUT/trash" && mv "$c/ds-gw-prof" "$(mktemp -d "$OUT/trash/XXXXXX")/"
gwi_s=${best_s[gwi]} gwi_rss=${best_rss[gwi]} all_s=${best_s[all]} all_rss=${best_rss[all]}
rep_s=${best_s[rep]} rep_rss=${best_rss[rep]} cmp_s=${best_s[cmp]} cmp_rss=${best_rss[cmp]}
dcopy_s=${best_s[dcopy]:-} dcopy_rss=${best_rss[dcopy]:-} dwin_s=${best_s[dwin]:-} dwin_rss=${best_rss[dwin]:-}
gwi_cpu=${best_cpu[gwi]} all_cpu=${best_cpu[all]} rep_cpu=${best_cpu[rep]} cmp_cpu=${best_cpu[cmp]}
dcopy_cpu=${best_cpu[dcopy]:-} dwin_cpu=${best_cpu[dwin]:-}

empty_trash

row() { printf '%-50s %10s %10s %9s %14s\n' "$@"; }
echo
echo "campaign: $nruns simulated 60-minute paired runs on $ENGINE, $((gw_bytes / 1000000)) MB of gateway logs, $((run_bytes / 1000000)) MB in all; $(nproc) cores, GOMAXPROCS=$GOMAXPROCS, DuckDB threads=2, best of $REPEAT rounds (the tools taking turns); load average $(load)"
row "measure" "outlast" "DuckDB" "ratio" "target"
duck_mbs="" dcopy_mb="" dwin_mb=""
if [ -n "$duck" ]; then
  duck_mbs=$(rate "$gw_bytes" "$dcopy_s")
  dcopy_mb=$(mb "$dcopy_rss")
  dwin_mb=$(mb "$dwin_rss")
fi
gwi_mbs=$(rate "$gw_bytes" "$gwi_s")
all_mbs=$(rate "$run_bytes" "$all_s")
r=$(ratio "$gwi_mbs" "$duck_mbs")
row "ingest, gateway + run.yaml only, MB/s" "$gwi_mbs" "${duck_mbs:--}" "$r" "$(check "${r%x}" 1.5 ge) (>= 1.5x)"
row "  seconds" "$gwi_s" "${dcopy_s:--}" "" ""
row "  CPU s (user + sys), DuckDB's / ours" "$gwi_cpu" "${dcopy_cpu:--}" "$(ratio "${dcopy_cpu:-}" "$gwi_cpu")" ""
row "  peak RSS, MB" "$(mb "$gwi_rss")" "${dcopy_mb:--}" "" "$(check "$(mb "$gwi_rss")" 256 le) (<= 256)"
shares "$BIN" "$c/gw.prof"
r=$(ratio "$all_mbs" "$duck_mbs")
row "ingest, whole run directories, MB/s" "$all_mbs" "${duck_mbs:--}" "$r" "$(check "${r%x}" 1.7 ge) (>= 1.7x)"
row "  seconds; ms per run" "$all_s; $(awk -v s="$all_s" -v n="$nruns" 'BEGIN{ printf "%.1f", 1000 * s / n }')" "" "" ""
row "  CPU s (user + sys)" "$all_cpu" "" "" ""
row "  peak RSS, MB" "$(mb "$all_rss")" "" "" "$(check "$(mb "$all_rss")" 256 le) (<= 256)"
r=$(ratio "$rep_s" "${dwin_s:-}")
row "outlast report vs DuckDB window query, s" "$rep_s" "${dwin_s:--}" "$r" "$(check "${r%x}" 5 le) (<= 5x)"
row "  CPU s (user + sys), ours / DuckDB's" "$rep_cpu" "${dwin_cpu:--}" "$(ratio "$rep_cpu" "${dwin_cpu:-}")" ""
row "  peak RSS, MB" "$(mb "$rep_rss")" "${dwin_mb:--}" "" "$(check "$(mb "$rep_rss")" 300 le) (<= 300)"
r=$(ratio "$cmp_s" "${dwin_s:-}")
row "outlast compare vs DuckDB window query, s" "$cmp_s" "${dwin_s:--}" "$r" "$(check "${r%x}" 5 le) (<= 5x)"
row "  CPU s (user + sys), ours / DuckDB's" "$cmp_cpu" "${dwin_cpu:--}" "$(ratio "$cmp_cpu" "${dwin_cpu:-}")" ""
row "  peak RSS, MB" "$(mb "$cmp_rss")" "${dwin_mb:--}" "" "$(check "$(mb "$cmp_rss")" 300 le) (<= 300)"
row "outlast simulate of the $nruns runs, s (once)" "$sim_s" "" "" ""
[ "$ENGINE" = vllm ] || exit 0 # the readers' rows once, with the vLLM campaign
