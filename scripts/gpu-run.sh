#!/usr/bin/env bash
# Runs what scripts/gpu-bundle.sh packed, on a machine with a CUDA device and toolkit.
# Usage: scripts/gpu-run.sh RESULTS_DIR STEP...
#   tests                      every test binary with --include-ignored
#   tests-spread               the same, the binaries spread over the machine's GPUs (one
#                              queue per GPU, largest binaries first), all GPUs at once
#   sanitize:TOOL:EXAMPLE ARGS an example under compute-sanitizer --tool TOOL
#   sanitize-tests:TOOL        every test binary, GPU tests included, under compute-sanitizer
#                              (each at most SANITIZE_TIMEOUT_S seconds, default 300)
#   "EXAMPLE ARGS"             an example
set -uo pipefail
cd "$(dirname "$0")/.."
results=${1:?results folder}
shift
mkdir -p "$results"
source scripts/bundle-env.sh
ls /usr/local/cuda/lib64/libnvrtc.so.13* 2>/dev/null | head -1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
# Runs test binary $1 with --include-ignored, its output in $results/test-NAME.log; prints
# its summary lines and returns its exit status.
run_test() {
  local log="$results/test-$(basename "$1").log"
  "$1" --include-ignored --test-threads=1 >"$log" 2>&1
  local rc=$?
  grep -E "^test result|FAILED|panicked" "$log" | head -20
  return $rc
}
# Prints the failures section of test binary $1's log.
print_failures() {
  sed -n '/^failures:$/,/^test result/p' "$results/test-$1.log" | head -80
}
status=0
for step in "$@"; do
  case "$step" in
    tests)
      for t in "$bundle"/tests/*; do
        name=$(basename "$t")
        echo "=== test $name"
        if ! run_test "$t"; then
          status=1
          print_failures "$name"
        fi
      done
      ;;
    tests-spread)
      gpus=$(nvidia-smi -L | wc -l)
      mapfile -t bins < <(ls -S "$bundle"/tests/*)
      for ((g = 0; g < gpus; g++)); do
        (
          for ((k = g; k < ${#bins[@]}; k += gpus)); do
            t=${bins[k]}
            name=$(basename "$t")
            start=$SECONDS
            summary=$(CUDA_VISIBLE_DEVICES=$g run_test "$t")
            rc=$?
            echo "$rc" >"$results/rc-$name"
            echo "=== test $name on GPU $g: exit $rc after $((SECONDS - start)) s"
            echo "$summary"
          done
        ) &
      done
      wait
      for f in "$results"/rc-*; do
        [ "$(cat "$f")" = 0 ] || {
          status=1
          print_failures "${f##*/rc-}"
        }
      done
      ;;
    sanitize-tests:*)
      # Skipped under a sanitizer: the compile-only tests check ptxas reports, which NVRTC
      # does not print there, and one stream test asserts that two streams overlap, which a
      # sanitizer's serialised launches rule out. Both run in the plain `tests` step.
      # API errors are not reported: a storage test provokes an out-of-memory on purpose,
      # and every other API result is checked by the tests themselves.
      tool=${step#sanitize-tests:}
      for t in "$bundle"/tests/*; do
        name=$(basename "$t")
        log="$results/sanitize-$tool-test-$name.log"
        echo "=== compute-sanitizer --tool $tool test $name"
        timeout "${SANITIZE_TIMEOUT_S:-300}" \
          compute-sanitizer --tool "$tool" --print-limit 20 --report-api-errors no \
          "$t" --include-ignored --test-threads=1 \
          --skip compiles_for_sm90_and_sm80 --skip compiles_checked_and_unchecked \
          --skip a_host_read_waits_for_exactly_the_work >"$log" 2>&1
        rc=$?
        grep -E "^test result|ERROR SUMMARY|RACECHECK SUMMARY|FAILED" "$log" | tail -4
        if [ $rc -eq 124 ]; then
          echo "timed out after ${SANITIZE_TIMEOUT_S:-300} s; its last lines:"
          tail -5 "$log"
        fi
        [ $rc -eq 0 ] || status=1
      done
      ;;
    sanitize:*)
      spec=${step#sanitize:}
      tool=${spec%%:*}
      cmd=${spec#*:}
      log="$results/sanitize-$tool-${cmd%% *}.log"
      echo "=== compute-sanitizer --tool $tool $cmd"
      compute-sanitizer --tool "$tool" --print-limit 20 $bundle/examples/$cmd >"$log" 2>&1
      rc=$?
      tail -4 "$log"
      [ $rc -eq 0 ] || status=1
      ;;
    *)
      echo "=== example $step"
      $bundle/examples/$step 2>&1 | tee "$results/example-${step%% *}.log"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      ;;
  esac
done
exit $status
