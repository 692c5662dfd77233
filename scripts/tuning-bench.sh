#!/usr/bin/env bash
# Runs benchmarks of the bundle (scripts/gpu-bundle.sh) three times each, with a fresh
# tuning file: ONGPU_TUNE=off (the default shapes), force (tuning, each decision logged),
# then on (the decisions read back). Usage: scripts/tuning-bench.sh RESULTS_DIR "EXAMPLE ARGS"...
set -uo pipefail
cd "$(dirname "$0")/.."
results=${1:?results folder}
shift
mkdir -p "$results"
source scripts/bundle-env.sh
export ONGPU_CACHE_DIR
ONGPU_CACHE_DIR=$(mktemp -d)
for spec in "$@"; do
  name=${spec%% *}
  for mode in off force on; do
    echo "=== $spec (ONGPU_TUNE=$mode)"
    ONGPU_TUNE=$mode ONGPU_TUNE_LOG=1 $bundle/examples/$spec >"$results/$name-$mode.log" 2>&1
    grep -E "ratio|GB/s|tuned|\| f(32|64)" "$results/$name-$mode.log" | head -30
  done
done
cp "$ONGPU_CACHE_DIR/tuning.txt" "$results/" 2>/dev/null
