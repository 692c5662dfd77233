#!/usr/bin/env bash
# Builds the release test binaries and examples and copies them (stripped) into .gpu-bundle/,
# so that a CUDA machine without a Rust toolchain can run them with scripts/gpu-run.sh, and
# compresses that folder into .gpu-bundle.tar.xz (carry that file alone).
# Usage: scripts/gpu-bundle.sh [example ...]   (default: every example)
# BUNDLE_FEATURES=mpi builds with those cargo features too (the MPI test programs and the
# examples' --ranks / --mpi runs; the CUDA machine has Open MPI).
set -euo pipefail
features=()
[ -n "${BUNDLE_FEATURES:-}" ] && features=(--features "$BUNDLE_FEATURES")
cd "$(dirname "$0")/.."
out=.gpu-bundle
rm -rf "$out"
mkdir -p "$out/tests" "$out/examples"

cargo test --workspace --release --no-run ${features[@]+"${features[@]}"} --message-format=json 2>/dev/null |
  python3 -c '
import json, shutil, sys, os
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") and m.get("executable"):
        name = m["target"]["name"]
        if name == "ui":  # trybuild needs cargo: not for the CUDA machine
            continue
        if m["target"]["kind"] == ["proc-macro"]:  # linked to the toolchain libstd: not for the CUDA machine
            continue
        if m["target"]["kind"] != ["test"]:
            name = m["package_id"].split("#")[0].rstrip("/").split("/")[-1] + "-" + name + "-unit"
        shutil.copy(m["executable"], os.path.join(sys.argv[1], "tests", name))
' "$out"

cargo build --release --examples ${features[@]+"${features[@]}"}
examples=("$@")
if [ ${#examples[@]} -eq 0 ]; then
  # single-file examples and directories with a main.rs
  examples=($( (ls examples/*.rs; ls examples/*/main.rs | xargs -n1 dirname) | xargs -n1 basename | sed 's/\.rs$//'))
fi
for e in "${examples[@]}"; do
  cp "target/release/examples/$e" "$out/examples/$e"
done
strip "$out"/tests/* "$out"/examples/* 2>/dev/null || true
du -sh "$out"
ls "$out/tests" "$out/examples"
# The folder compressed, for a carried tree limited in size (gpu-run.sh unpacks it).
tar -C "$out" -cf - . | xz -T0 -6 >"$out.tar.xz"
du -sh "$out.tar.xz"
