#!/usr/bin/env bash
# The multi-process runs on a CUDA machine with Open MPI, from a bundle built with
# `BUNDLE_FEATURES=mpi scripts/gpu-bundle.sh`: each step under `mpirun -np N` (ranks share
# the machine's GPUs, `local_rank % GPUs`), its output in RESULTS_DIR and its tail printed.
# Usage: scripts/gpu-mpi.sh RESULTS_DIR "N PROGRAM ARGS" ...   (PROGRAM: tests/NAME,
#        examples/NAME, or sanitize:TOOL:tests/NAME for compute-sanitizer inside each rank;
#        each step at most MPI_STEP_TIMEOUT_S seconds, default 400)
set -uo pipefail
cd "$(dirname "$0")/.."
results=${1:?results folder}
shift
mkdir -p "$results"
source scripts/bundle-env.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
status=0
k=0
for step in "$@"; do
  read -r n program args <<<"$step"
  k=$((k + 1))
  log="$results/$k-$(basename "${program##*:}")-np$n.log"
  case "$program" in
    sanitize:*)
      tool=$(cut -d: -f2 <<<"$program")
      # API errors are not reported: NCCL's initialisation probes for kernel images with
      # calls that fail by design (cudaErrorNoKernelImageForDevice), as the test steps of
      # gpu-run.sh do for a test that provokes an out-of-memory.
      cmd=(compute-sanitizer --tool "$tool" --report-api-errors no --error-exitcode 9 "$bundle/${program#sanitize:*:}")
      ;;
    *) cmd=("$bundle/$program") ;;
  esac
  echo "=== mpirun -np $n ${cmd[*]} $args"
  # shellcheck disable=SC2086
  timeout ${MPI_STEP_TIMEOUT_S:-400} mpirun -np "$n" "${cmd[@]}" $args >"$log" 2>&1
  rc=$?
  grep -v "^\s*$" "$log" | grep -v "^=========" | tail -25
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | sort | uniq -c
  echo "rc=$rc"
  [ $rc -eq 0 ] || status=1
done
exit $status
