#!/usr/bin/env bash
# Every check of the project: formatting, clippy on both feature sets, all workspace tests
# (NVRTC compiles every generated kernel; GPU tests are ignored on machines without one),
# the CPU-only build's tests (with the physics library), the docs, the `mpi` feature under
# mpirun (scripts/mpi-tests.sh, which installs Open MPI if needed), and the packages of the
# four crates.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/nvrtc-env.sh
export ONGPU_BACKEND=${ONGPU_BACKEND:-auto}
# One build of each feature set: incremental state would only double the disk it takes.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
# Each step's time, printed as it ends and again at the end (where the suite's time goes).
times=()
step() {
  local t0=$SECONDS
  "$@"
  times+=("$(printf '%5d s  %s' $((SECONDS - t0)) "$*")")
  echo "test.sh: ${times[-1]}" >&2
}
step cargo fmt --all -- --check
step cargo clippy --workspace --all-targets -- -D warnings
step cargo clippy --workspace --all-targets --no-default-features --features rayon -- -D warnings
# The test harnesses (tests/<topic>/main.rs or tests/<topic>.rs): those of the runtime's
# behaviour, the physics library's (gauge, quarks), and the macro's compile errors (ui).
runtime_tests=()
for harness in tests/*/main.rs tests/*.rs; do
  name=$(basename "${harness%/main.rs}" .rs)
  case $name in gauge | quarks | ui) ;; *) runtime_tests+=(--test "$name") ;; esac
done
# The unit tests, the runtime's harnesses and the compile errors; the examples, which hold
# no tests, are checked by clippy above (building them again here took minutes of a clean
# machine's two cores).
step cargo test --workspace --lib --bins "${runtime_tests[@]}" --test ui
# The physics harnesses optimised (the `physics-test` profile, debug assertions on): their
# Markov chains and solvers on the CPU backend took 14 minutes of two cores unoptimised,
# and take 2 optimised, after a build of 5.
step cargo test --profile physics-test --test gauge --test quarks
step cargo test --workspace --doc
# The CPU-only build (no `cuda` feature: fields without a device side, another dispatch of
# calls and reductions) runs the unit tests and every harness of the runtime's behaviour. The
# physics harnesses call the same runtime on the same CPU backend as in the run above, and
# the macro's compile errors do not depend on the features; clippy above checked all three
# in this build.
step cargo test --workspace --lib --bins "${runtime_tests[@]}" --no-default-features --features rayon,qcd
RUSTDOCFLAGS="-D warnings" step cargo doc --workspace --no-deps --quiet
# The `mpi` feature: its build, and its test program under mpirun with 1, 2 and 4 ranks.
step bash scripts/mpi-tests.sh
# The four published crates as they would be published (ongpu-classic, the examples' kernels, and ongpu-reference, the tests' host operators, are not) (each packaged and built from its package), in
# a target folder of its own: cargo keys a registry crate's build by name and version only,
# so a reused folder would build the packages against an earlier package of the same version.
# Cargo also unpacks each verified package into the registry's source folder under its name and
# version and reuses an unpacked folder it finds there, so earlier packages are removed first.
rm -rf target/package-check "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ongpu{,-macros,-runtime,-qcd}-[0-9]*
CARGO_TARGET_DIR=target/package-check step cargo package --workspace --exclude ongpu-classic --exclude ongpu-reference --allow-dirty --quiet
printf '%s\n' "${times[@]}"
du -sh target 2>/dev/null || true
echo "all checks passed in $SECONDS s"
