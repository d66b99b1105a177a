#!/usr/bin/env bash
# make demo: simulate a reduced experiment matrix in the real log formats,
# ingest it through the same readers as real runs, and report it.
# Usage: demo.sh BIN OUTDIR      (demo.sh --clean OUTDIR removes a demo's OUTDIR)
#
# OUTDIR is made, or is the OUTDIR of an earlier demo (it holds .outlast-demo),
# whose directories are replaced; any other directory that is not empty is
# refused, so that no one's files are removed.
set -euo pipefail

# own removes what an earlier demo wrote into $1, and refuses a directory
# that is not empty and not a demo's.
own() {
  local out=$1
  if [ -e "$out" ] && [ ! -d "$out" ]; then
    echo "demo: $out is a file, not a directory: give another OUT (make demo OUT=DIR)" >&2
    exit 2
  fi
  if [ -d "$out" ] && [ -n "$(ls -A "$out")" ] && [ ! -f "$out/.outlast-demo" ]; then
    echo "demo: $out is not empty, and no demo wrote it: give another OUT (make demo OUT=DIR), or empty it" >&2
    exit 2
  fi
  if [ -d "$out" ]; then
    rm -rf "$out/runs" "$out/dataset" "$out/real" "$out/report" "$out/.outlast-demo"
    rmdir "$out" 2>/dev/null || true # kept if it holds anything else
  fi
}

if [ "${1:-}" = --clean ]; then
  own "${2:?usage: demo.sh --clean OUTDIR}"
  exit 0
fi
bin=${1:-bin/outlast}
out=${2:-demo}
own "$out"
mkdir -p "$out"
echo "outlast demo: this directory is make demo's, and the next make demo replaces it" > "$out/.outlast-demo"
start=$(date +%s)

echo "== simulating a reduced matrix (paired x4 seeds, calibration, recovery x4 seeds, drain) into $out/runs"
"$bin" simulate --design paired --seeds 4 --duration 3600 --out "$out/runs/paired" >/dev/null
"$bin" simulate --design calibration --seeds 1 --out "$out/runs/calibration" >/dev/null
"$bin" simulate --design recovery --seeds 4 --out "$out/runs/recovery" >/dev/null
"$bin" simulate --design drain --seeds 1 --duration 5400 --out "$out/runs/drain" >/dev/null

echo "== ingesting into the Parquet dataset $out/dataset"
"$bin" ingest -q --out "$out/dataset" "$out/runs/paired" "$out/runs/calibration" "$out/runs/recovery" "$out/runs/drain"
"$bin" runs "$out/dataset"

echo "== ingesting the bundled real-format fixtures (vLLM 0.8, 0.10, 2026; SGLang 0.4, 2026; AIPerf, GuideLLM, inference-perf) into $out/real"
echo "   (their warnings are what outlast says of real logs; each fixture directory that holds no run is named, with why)"
"$bin" ingest -q --out "$out/real" fixtures/real
"$bin" runs "$out/real"

echo "== reporting"
"$bin" report "$out/dataset" --out "$out/report"
echo
echo "done in $(( $(date +%s) - start )) s. Open the report: $out/report/index.html"
echo "(numbers: $out/report/summary.json; tables: $out/report/tables/)"
