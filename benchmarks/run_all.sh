#!/usr/bin/env bash
# Run every benchmark once and print their tables. Not a test: nothing here passes or fails.
#   benchmarks/run_all.sh                       # ~4 minutes (60 s soak)
#   benchmarks/run_all.sh --soak-seconds 600    # extra arguments go to bench_server.py
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

echo "== bench_prompt.py"
"$PY" benchmarks/bench_prompt.py | tee "$out/prompt.txt"
echo
echo "== bench_postprocess.py"
"$PY" benchmarks/bench_postprocess.py
echo
echo "== bench_server.py"
"$PY" benchmarks/bench_server.py --prompt-output "$out/prompt.txt" "$@"
