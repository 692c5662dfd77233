#!/usr/bin/env bash
# vector_add under each loop unrolling and grid size, for choosing the defaults.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
for u in 1 2 4 8; do
  for w in 0 1 2 4; do
    printf "unroll %s waves %s: " "$u" "$w"
    ONGPU_UNROLL=$u ONGPU_WAVES=$w .gpu-bundle/examples/vector_add --reps 40 | grep ratio
  done
done
