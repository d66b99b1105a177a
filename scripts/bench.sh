#!/usr/bin/env bash
# make bench: the Go benchmarks (MB/s where they set bytes), then whole
# processes on generated inputs: outlast ingest against DuckDB's
# read_json -> COPY TO parquet on the same gateway log, both on 2 cores,
# and the peak-memory checks on a 2 GB log and a 1 GB GuideLLM report;
# then a campaign of simulated runs (scripts/bench-campaign.sh): ingest
# beside DuckDB on the runs' gateway logs, outlast report and compare
# beside DuckDB's per-run window query. Prints the tables of results and
# ratios (docs/performance.md explains them). Usage: bench.sh BIN
#
# Environment: GW_MB (default 658), BIG_MB (default 2048) and GL_MB
# (default 1000, the GuideLLM report) size the generated logs; REPEAT (default 3) rounds of whole processes, in which outlast and
# DuckDB take turns, each keeping its fastest; SKIP_BIG=1 skips the 2 GB and GuideLLM checks; SKIP_REPORT=1 skips the
# report timing on 100 simulated runs; HUGE_MB (unset: skipped)
# adds one peak-RSS run on a log that large, generated and then deleted
# (5120 takes 5 GB of disk for a minute); SKIP_CAMPAIGN=1 skips the
# campaigns, CAMPAIGN_SEEDS (default 200: 400 runs) sizes them and
# CAMPAIGN_ENGINES (default "vllm sglang") chooses them; GROWTH=1
# adds the growth with the number of runs (scripts/bench-growth.sh: 100,
# all and ten times all the campaign's runs, some 5 minutes). Inputs are
# generated under bench/out/ (git-ignored), deterministically, without
# downloads.
set -euo pipefail
BIN=${1:?usage: bench.sh BIN}
GW_MB=${GW_MB:-658}
BIG_MB=${BIG_MB:-2048}
REPEAT=${REPEAT:-3}
OUT=bench/out
mkdir -p "$OUT"
export GOMAXPROCS=${GOMAXPROCS:-2}

gen() { # gen MB DIR: generate a run directory unless already there
  if [ ! -f "$2/run.yaml" ]; then
    go run ./internal/benchgen/cmd/benchgen -mb "$1" -out "$2" >&2
  fi
}

. scripts/bench-lib.sh

echo "== Go benchmarks (GOMAXPROCS=$GOMAXPROCS)" >&2
# -p 1: go test runs the benchmarks one package at a time but builds the
# next packages meanwhile, on the cores a benchmark measures.
go test -p 1 -run '^$' -bench . -benchmem -count 1 ./... | tee "$OUT/go-bench.txt" >&2

gw="$OUT/gw$GW_MB"
gen "$GW_MB" "$gw"
bytes=$(stat -c %s "$gw/gateway.jsonl")

duck=""
if command -v node >/dev/null && [ -d tools/duckdb/node_modules/@duckdb/node-api ]; then
  duck=1
else
  echo "== DuckDB skipped: no node, or tools/duckdb not installed (cd tools/duckdb && npm install --no-package-lock)" >&2
fi
# outlast and DuckDB take turns, REPEAT rounds, each keeping its best.
for ((round = 1; round <= REPEAT; round++)); do
  echo "== round $round of $REPEAT: outlast ingest $gw ($bytes bytes)${duck:+, DuckDB read_json -> COPY parquet zstd, threads=2}" >&2
  keep ours < <(REPEAT=1 FRESH="$OUT/ds" measure "$BIN" ingest -q --out "$OUT/ds" "$gw")
  if [ -n "$duck" ]; then
    keep duck < <(REPEAT=1 measure node tools/duckdb/copy.mjs 2 "$gw/gateway.jsonl" "$OUT/duckdb.parquet")
  fi
done
# One more ingest, profiled, for what bounds it.
rm -rf "$OUT/ds-prof"
OUTLAST_CPUPROFILE="$OUT/gw.prof" "$BIN" ingest -q --out "$OUT/ds-prof" "$gw" >/dev/null
mkdir -p "$OUT/trash" && mv "$OUT/ds-prof" "$(mktemp -d "$OUT/trash/XXXXXX")/"
ours_s=${best_s[ours]} ours_rss=${best_rss[ours]} ours_cpu=${best_cpu[ours]}
duck_s=${best_s[duck]:-} duck_rss=${best_rss[duck]:-} duck_cpu=${best_cpu[duck]:-}
load_single=$(load)

# peak_ingest MB NAME: one outlast ingest of a generated gateway log of MB
# megabytes into $OUT/ds-NAME (removed after), for its peak RSS; sets
# NAME_bytes, NAME_s and NAME_rss.
peak_ingest() {
  local gw="$OUT/gw$1" ds="$OUT/ds-$2" n
  gen "$1" "$gw"
  n=$(stat -c %s "$gw/gateway.jsonl")
  printf -v "$2_bytes" %s "$n"
  echo "== outlast ingest $gw ($n bytes): peak RSS" >&2
  rm -rf "$ds"
  read -r "$2_s" "$2_rss" _ < <(REPEAT=1 FRESH="$ds" measure "$BIN" ingest -q --out "$ds" "$gw")
  rm -rf "$ds"
}

big_s="" big_rss=""
if [ "${SKIP_BIG:-0}" != 1 ]; then
  peak_ingest "$BIG_MB" big
fi

huge_s="" huge_rss=""
if [ -n "${HUGE_MB:-}" ]; then
  peak_ingest "$HUGE_MB" huge
  rm -rf "$OUT/gw$HUGE_MB"
fi

# GuideLLM's report is one JSON document, read as a stream: outlast ingest
# of a 1 GB report must stay under 256 MB peak RSS.
gl_s="" gl_rss=""
if [ "${SKIP_BIG:-0}" != 1 ]; then
  gl="$OUT/guidellm${GL_MB:-1000}"
  if [ ! -f "$gl/run.yaml" ]; then
    go run ./internal/benchgen/cmd/benchgen -format guidellm -mb "${GL_MB:-1000}" -out "$gl" >&2
  fi
  gl_bytes=$(stat -c %s "$gl/benchmarks.json")
  echo "== outlast ingest $gl ($gl_bytes bytes, GuideLLM): peak RSS" >&2
  rm -rf "$OUT/ds-gl"
  read -r gl_s gl_rss _ < <(REPEAT=1 measure "$BIN" ingest -q --out "$OUT/ds-gl" "$gl")
  rm -rf "$OUT/ds-gl"
fi

# The report end to end (read the dataset, every measure, the HTML page):
# 100 simulated runs (the paired design, 50 seeds, 90 minutes; ~4,000
# turns each).
rep_s=""
if [ "${SKIP_REPORT:-0}" != 1 ]; then
  if [ ! -d "$OUT/ds-report" ]; then
    echo "== simulating and ingesting 100 runs for the report timing" >&2
    rm -rf "$OUT/runs-report"
    "$BIN" simulate --design paired --seeds 50 --out "$OUT/runs-report" >/dev/null
    "$BIN" ingest -q --out "$OUT/ds-report" "$OUT/runs-report"
    rm -rf "$OUT/runs-report"
  fi
  echo "== outlast report $OUT/ds-report" >&2
  read -r rep_s _ < <(measure "$BIN" report "$OUT/ds-report" --out "$OUT/report")
fi

ours_mbs=$(rate "$bytes" "$ours_s")
duck_mbs=""
[ -n "$duck_s" ] && duck_mbs=$(rate "$bytes" "$duck_s")
big_mbs=""
[ -n "$big_s" ] && big_mbs=$(rate "${big_bytes:-0}" "$big_s")
ingest_ratio=$(ratio "$ours_mbs" "$duck_mbs")
single_target=1.5

echo
echo "outlast bench, $(nproc) cores, GOMAXPROCS=$GOMAXPROCS, DuckDB threads=2, best of $REPEAT; load average $load_single after the single log, $(load) now"
printf '%-44s %14s %14s %10s %8s\n' "measure" "outlast" "DuckDB" "ratio" "target"
printf '%-44s %14s %14s %10s %8s\n' "gateway $((bytes / 1000000)) MB -> Parquet, MB/s (>= 1.5x)" "$ours_mbs" "${duck_mbs:--}" "$ingest_ratio" \
  "$(awk -v r="${ingest_ratio%x}" -v t="$single_target" 'BEGIN{ if (r == "-") print "-"; else if (r >= t) print "ok"; else print "MISSED" }')"
# CPU seconds (user + sys, the least of the rounds): their ratio is
# DuckDB's over ours, comparable with the throughput ratio above, and far
# less moved by a busy machine than the wall clock.
printf '%-44s %14s %14s %10s %8s\n' "  CPU s (user + sys), DuckDB's / ours" "$ours_cpu" "${duck_cpu:--}" "$(ratio "${duck_cpu:-}" "$ours_cpu")" "-"
printf '%-44s %14s %14s %10s %8s\n' "  peak RSS, MB" "$(mb "$ours_rss")" "$(mb "$duck_rss")" "$(ratio "$(mb "$ours_rss")" "$(mb "$duck_rss")")" "$(check "$(mb "$ours_rss")" 256 le)"
shares "$BIN" "$OUT/gw.prof"
if [ -n "$big_s" ]; then
  printf '%-44s %14s %14s %10s %8s\n' "gateway $((big_bytes / 1000000)) MB -> Parquet, MB/s" "$big_mbs" "-" "-" "-"
  printf '%-44s %14s %14s %10s %8s\n' "  peak RSS, MB (target < 256)" "$(mb "$big_rss")" "-" "-" "$(check "$(mb "$big_rss")" 255.99 le)"
fi
if [ -n "$huge_s" ]; then
  printf '%-44s %14s %14s %10s %8s\n' "gateway $((huge_bytes / 1000000)) MB -> Parquet, MB/s" "$(rate "$huge_bytes" "$huge_s")" "-" "-" "-"
  printf '%-44s %14s %14s %10s %8s\n' "  peak RSS, MB (target < 256)" "$(mb "$huge_rss")" "-" "-" "$(check "$(mb "$huge_rss")" 255.99 le)"
fi
row_mbs() { # row LABEL BENCH PKG TARGET
  local v
  v=$(go_metric "$2" "$3" MB/s)
  printf '%-44s %14s %14s %10s %8s\n' "$1" "${v:--}" "-" "-" "$( [ -n "$4" ] && check "$v" "$4" ge || echo -)"
}
row_secs() { # row LABEL BENCH PKG TARGET_S
  local v
  v=$(go_metric "$2" "$3" ns/op | awk '{ printf "%.3f", $1 / 1e9 }')
  printf '%-44s %14s %14s %10s %8s\n' "$1" "${v:--}" "-" "-" "$(check "$v" "$4" le)"
}
row_mbs "gateway reader (Go bench), MB/s" BenchmarkReader ingest/outlastlog ""
row_mbs "AIPerf reader, MB/s (target >= 150)" BenchmarkReader ingest/aiperf 150
row_mbs "GuideLLM reader, MB/s (target >= 150)" BenchmarkReader ingest/guidellm 150
row_mbs "inference-perf reader, MB/s (target >= 150)" BenchmarkReader ingest/inferenceperf 150
if [ -n "$gl_s" ]; then
  printf '%-44s %14s %14s %10s %8s\n' "GuideLLM $((gl_bytes / 1000000)) MB -> Parquet, MB/s" "$(rate "$gl_bytes" "$gl_s")" "-" "-" "-"
  printf '%-44s %14s %14s %10s %8s\n' "  peak RSS, MB (target < 256)" "$(mb "$gl_rss")" "-" "-" "$(check "$(mb "$gl_rss")" 255.99 le)"
fi
row_mbs "ingest pipeline 64 MB (Go bench), MB/s" BenchmarkIngestGateway ingest/rundir ""
row_mbs "vLLM log reader, MB/s (target >= 150)" BenchmarkReader ingest/vllmlog 150
row_mbs "SGLang log reader, MB/s (target >= 150)" BenchmarkReader ingest/sglanglog 150
row_mbs "Prometheus scrapes reader, MB/s (>= 150)" BenchmarkReader ingest/promscrape 150
row_mbs "timestamped Prometheus text, MB/s (>= 150)" BenchmarkTimedText ingest/promscrape 150
row_mbs "timestamped OpenMetrics, MB/s (>= 150)" BenchmarkTimedOpenMetrics ingest/promscrape 150
row_mbs "query_range JSON reader, MB/s (>= 150)" BenchmarkReader ingest/promjson 150
# The same on its CPU time, which a busy machine moves far less.
printf '%-44s %14s %14s %10s %8s\n' "  MB per CPU second" "$(awk -v r="$(go_metric BenchmarkReader ingest/promjson MB/s)" -v t="$(go_metric BenchmarkReader ingest/promjson ns/op)" -v c="$(go_metric BenchmarkReader ingest/promjson cpu-ms/op)" 'BEGIN{ if (c > 0) printf "%.0f", r * t / (c * 1e6) }')" "-" "-" "-"
row_secs "stats, 100 runs x 5,000 turns, s (< 2)" BenchmarkAllMeasures100Runs stats 2
printf '%-44s %14s %14s %10s %8s\n' "outlast report, 100 simulated runs, s (< 2)" "${rep_s:--}" "-" "-" "$(check "$rep_s" 2 le)"
row_secs "simulate a 90-minute run, s (< 0.5)" BenchmarkSimulate90Min sim 0.5
row_secs "replay 16 seeds of a 60-minute run, s (< 5)" BenchmarkReplay16Seeds60Min replay 5
printf '%-44s %14s %14s %10s %8s\n' "per-run fixed cost (Go bench), ms (<= 5)" "$(go_metric BenchmarkRunFixedCost ingest/campaign ms/run)" "-" "-" \
  "$(check "$(go_metric BenchmarkRunFixedCost ingest/campaign ms/run)" 5 le)"
printf '%-44s %14s %14s %10s %8s\n' "  CPU ms (user + sys) a run" "$(go_metric BenchmarkRunFixedCost ingest/campaign cpu-ms/run)" "-" "-" "-"

empty_trash

if [ "${SKIP_CAMPAIGN:-0}" != 1 ]; then
  echo
  for engine in ${CAMPAIGN_ENGINES:-vllm sglang}; do
    echo
    OUT="$OUT" REPEAT="$REPEAT" CAMPAIGN_ENGINE=$engine ./scripts/bench-campaign.sh "$BIN"
  done
  if [ "${GROWTH:-0}" = 1 ]; then
    OUT="$OUT" ./scripts/bench-growth.sh "$BIN"
  fi
fi
