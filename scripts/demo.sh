#!/usr/bin/env bash
# make demo: simulate a reduced experiment matrix, ingest it through the same
# readers as real runs, and report it. Usage: demo.sh BIN OUTDIR
set -euo pipefail
bin=${1:-bin/outlast}
out=${2:-demo}
rm -rf "$out"
mkdir -p "$out"

echo "== ingesting the bundled real-format fixtures (vLLM 0.8, 0.10, 2026; SGLang 0.4, 2026)"
"$bin" ingest --out "$out/real" fixtures/real
"$bin" runs "$out/real"
