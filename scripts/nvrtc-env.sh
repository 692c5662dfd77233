# Sourced by scripts/test.sh: puts NVRTC (libnvrtc.so.13) on LD_LIBRARY_PATH so that the
# tests compile every generated kernel with the real NVRTC, no GPU needed. Uses a CUDA
# toolkit when one is installed, else the `nvidia-cuda-nvrtc` wheel (installed if missing).
nvrtc_wheel_lib() {
  python3 - <<'PY' 2>/dev/null
import importlib.util, os
spec = importlib.util.find_spec("nvidia")
for root in (spec.submodule_search_locations if spec else []):
    lib = os.path.join(root, "cu13", "lib")
    if os.path.exists(os.path.join(lib, "libnvrtc.so.13")):
        print(lib)
        break
PY
}
if [ -e /usr/local/cuda/lib64/libnvrtc.so.13 ]; then
  nvrtc_lib=/usr/local/cuda/lib64
else
  nvrtc_lib=$(nvrtc_wheel_lib)
  if [ -z "$nvrtc_lib" ]; then
    python3 -m pip install --quiet --disable-pip-version-check nvidia-cuda-nvrtc==13.0.88
    nvrtc_lib=$(nvrtc_wheel_lib)
  fi
fi
if [ -z "$nvrtc_lib" ]; then
  echo "NVRTC not found and could not be installed (pip install nvidia-cuda-nvrtc==13.0.88)" >&2
  exit 1
fi
export LD_LIBRARY_PATH="$nvrtc_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "NVRTC from $nvrtc_lib"
