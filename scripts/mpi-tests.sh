#!/usr/bin/env bash
# The multi-process checks of the `mpi` feature: clippy, docs and doc tests with it, then the
# MPI test programs
# (tests/mpi/ranks.rs: the world, its collectives and messages; tests/mpi/qcd.rs: the physics
# library over ranks, its CG the same bits for 1, 2 and 4 ranks; tests/mpi/lattice.rs: lattice
# programs over lattices cut over ranks, against the whole lattice) under mpirun with 1, 2
# and 4 ranks, and two runs in which one rank
# fails (an abort, a panic) that must end every rank with its message instead of hanging.
# Installs Open MPI (and libclang, which the MPI bindings' build needs) when they are missing
# and the machine has apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."

has_libclang() {
  compgen -G "/usr/lib/llvm-*/lib/libclang*.so*" >/dev/null ||
    compgen -G "/usr/lib/*/libclang*.so*" >/dev/null
}
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null || ! has_libclang; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo -n"
  if command -v apt-get >/dev/null && { [ -z "$sudo" ] || sudo -n true 2>/dev/null; }; then
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libopenmpi-dev openmpi-bin libclang-dev >/dev/null
  else
    echo "mpi-tests: needs Open MPI (mpicc, mpirun) and libclang; install libopenmpi-dev" \
      "openmpi-bin libclang-dev" >&2
    exit 1
  fi
fi

cargo clippy --workspace --all-targets --features mpi -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet --features mpi
cargo test --quiet -p ongpu-runtime --features mpi --doc mpi
# The unit tests the feature adds (NVRTC compiles the face and exact-sum kernels).
cargo test --quiet -p ongpu-runtime --features mpi --lib -- exact face_kernels ranks

# The executable of test program $1.
test_binary() {
  cargo test --features mpi --test "$1" --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == sys.argv[1] and m.get("executable"):
        print(m["executable"])' "$1"
}
bin=$(test_binary mpi_ranks)
lattice_bin=$(test_binary mpi_lattice)
qcd_bin=$(test_binary mpi_qcd)

# As root (CI) Open MPI needs to be told it may; more ranks than cores need oversubscription;
# containers may forbid the shared-memory transport's cross-process copies.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export ONGPU_BACKEND=${ONGPU_BACKEND:-auto}
digests=()
for n in 1 2 4; do
  timeout 300 mpirun -np "$n" "$bin"
  timeout 300 mpirun -np "$n" "$lattice_bin"
  out=$(timeout 300 mpirun -np "$n" "$qcd_bin")
  echo "$out"
  digests+=("$(grep -o 'digest [0-9a-f]*' <<<"$out")")
done
# Sums over ranks are exact: the CG's solution is the same bits for every rank count.
if [ "$(printf '%s\n' "${digests[@]}" | sort -u | wc -l)" != 1 ]; then
  echo "mpi-tests: the CG or the RHMC trajectory differs between rank counts: ${digests[*]}"
  exit 1
fi

# A failing rank ends the run: a non-zero exit within the time limit, and its message.
for fault in abort panic; do
  set +e
  out=$(ONGPU_MPI_TEST_FAULT=$fault timeout 120 mpirun -np 3 "$bin" 2>&1)
  rc=$?
  set -e
  want="deliberate $fault"
  if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! grep -q "$want" <<<"$out"; then
    echo "mpi-tests: the $fault of one rank did not end the run with its message (exit $rc):"
    echo "$out" | tail -20
    exit 1
  fi
  echo "mpi-tests: the $fault of rank 2 of 3 ended the run (exit $rc) with its message"
done
echo "mpi-tests: passed"
