# Sourced by the scripts that run what scripts/gpu-bundle.sh packed (from the repository
# root): unpacks the bundle if only its archive is there, and puts the CUDA toolkit's
# libraries (NVRTC) on the library path. Sets `bundle` to the bundle's folder.
bundle=.gpu-bundle
if [ ! -d "$bundle" ] && [ -f "$bundle.tar.xz" ]; then
  mkdir -p "$bundle" && xz -dc "$bundle.tar.xz" | tar -C "$bundle" -xf -
fi
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
