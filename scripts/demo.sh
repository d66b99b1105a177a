#!/usr/bin/env bash
# make demo: simulate a reduced experiment matrix in the real log formats,
# ingest it through the same readers as real runs, and report it.
# Usage: demo.sh BIN OUTDIR
set -euo pipefail
bin=${1:-bin/outlast}
out=${2:-demo}
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)

echo "== simulating a reduced matrix (paired x4 seeds, calibration, recovery x4 seeds, drain) into $out/runs"
"$bin" simulate --design paired --seeds 4 --duration 3600 --out "$out/runs/paired" >/dev/null
"$bin" simulate --design calibration --seeds 1 --out "$out/runs/calibration" >/dev/null
"$bin" simulate --design recovery --seeds 4 --out "$out/runs/recovery" >/dev/null
"$bin" simulate --design drain --seeds 1 --duration 5400 --out "$out/runs/drain" >/dev/null

echo "== ingesting into the Parquet dataset $out/dataset"
"$bin" ingest -q --out "$out/dataset" "$out/runs/paired" "$out/runs/calibration" "$out/runs/recovery" "$out/runs/drain"
"$bin" runs "$out/dataset"

echo "== ingesting the bundled real-format fixtures (vLLM 0.8, 0.10, 2026; SGLang 0.4, 2026) into $out/real"
"$bin" ingest -q --out "$out/real" fixtures/real 2>/dev/null
"$bin" runs "$out/real"

echo "== reporting"
"$bin" report "$out/dataset" --out "$out/report"
echo
echo "done in $(( $(date +%s) - start )) s. Open the report: $out/report/index.html"
echo "(numbers: $out/report/summary.json; tables: $out/report/tables/)"
