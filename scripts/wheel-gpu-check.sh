#!/bin/sh
# SPDX-License-Identifier: MIT
# The wheel on the GPU machine (issue 44's bar): installs a gip-imaging wheel into a fresh venv and
# runs the GPU tests against it, from outside the source tree. Logs go to $OUT (or out/wheel-gpu).
#
# Usage: scripts/wheel-gpu-check.sh [WHEEL [WHEELHOUSE]]
#   WHEEL       a wheel for this machine's python3 (default: the newest dist/gip_imaging-*-cpXY-*
#               .whl). The GPU machine has Python 3.12: make it here with
#               `make wheel PYTHON=python3.12` (pyenv's 3.12; only the extension module is rebuilt).
#   WHEELHOUSE  a folder holding the cuda13 extra's NVIDIA wheels, made where there is a network:
#                 pip download -d WHEELHOUSE 'nvidia-cublas>=13,<14' 'nvidia-cufft>=12,<13' \
#                   'nvidia-cuda-nvrtc>=13,<14' 'nvidia-cudnn-cu13>=9,<10' 'nvidia-nvjpeg>=13,<14'
#               (1.2 GB: cuDNN 517 MB, cuBLAS 444 MB, cuFFT 165 MB, NVRTC 58 MB, nvJitLink
#               47 MB (cuFFT's dependency), nvJPEG 4 MB; more than `run`'s carry allows, so it
#               must already be on the GPU machine). With it, `pip install --no-index
#               'WHEEL[cuda13]'` and gip must load its CUDA libraries from those wheels (the
#               summary lists the files loaded); without it, from the system CUDA.
# The machine needs python3 with venv, and numpy, pytest and OpenCV installed for the system's
# Python (the venv sees them: --system-site-packages; nothing is downloaded). PYTEST_ARGS adds
# pytest arguments (e.g. -x, or -k cuda for the GPU tests alone).
# ENV_PYTHON=PATH installs into the environment of that interpreter instead of a new venv: one
# that already holds NVIDIA's CUDA 13 wheels (a PyTorch venv) satisfies the cuda13 extra from
# them, so WHEELHOUSE need only hold what it lacks (e.g. nvidia-nvjpeg, 4 MB).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$src/out/wheel-gpu}
mkdir -p "$out"
PYTHON=${PYTHON:-python3}
tag=$("${ENV_PYTHON:-$PYTHON}" -c "import sys; print('cp%d%d' % sys.version_info[:2])")
WHEEL=${1:-$(ls -t "$src"/dist/gip_imaging-*-"$tag"-"$tag"-*.whl 2>/dev/null | head -n 1)}
WHEELHOUSE=${2:-}
if [ -z "$WHEEL" ] || [ ! -f "$WHEEL" ]; then
    echo "wheel-gpu-check: no $tag wheel (give one, or make wheel PYTHON=python3.X)" >&2
    exit 1
fi
WHEEL=$(cd "$(dirname "$WHEEL")" && pwd)/$(basename "$WHEEL")
echo "wheel: $WHEEL" | tee "$out/summary.txt"

work=$(mktemp -d "${TMPDIR:-/tmp}/gip-wheel-gpu.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -n "${ENV_PYTHON:-}" ]; then
    py=$ENV_PYTHON
    gip=$(dirname "$ENV_PYTHON")/gip
    echo "environment: $("$py" -c 'import sys; print(sys.prefix)') (ENV_PYTHON)" | tee -a "$out/summary.txt"
    # The package must find the wheels' libraries itself (gip/_cudalibs.py), not from a path
    # the machine already set.
    echo "GIP_CUDA_LIBRARY_PATH was: ${GIP_CUDA_LIBRARY_PATH:-(unset)}; unset" | tee -a "$out/summary.txt"
    unset GIP_CUDA_LIBRARY_PATH
else
    "$PYTHON" -m venv --system-site-packages "$work/venv"
    py="$work/venv/bin/python"
    gip="$work/venv/bin/gip"
fi
if [ -n "$WHEELHOUSE" ]; then
    echo "CUDA libraries: the cuda13 extra's wheels from $WHEELHOUSE" | tee -a "$out/summary.txt"
    "$py" -m pip install --no-index --find-links "$WHEELHOUSE" "gip-imaging[cuda13] @ file://$WHEEL" \
        >"$out/pip.log" 2>&1
elif ! "$py" -m pip install --no-index "$WHEEL" >"$out/pip.log" 2>&1; then
    # A venv does not see packages installed in the user's site (pip install --user), where a
    # machine may keep numpy, pytest and OpenCV: then the wheel goes into a folder of its own
    # (its dependencies left to what this python3 already has) and runs from there.
    echo "venv install failed (see pip.log): the wheel installed with --target instead" |
        tee -a "$out/summary.txt"
    "$PYTHON" -m pip install --no-index --no-deps --target "$work/site" "$WHEEL" >>"$out/pip.log" 2>&1
    py="$PYTHON"
    gip="$work/site/bin/gip"
    export PYTHONPATH="$work/site"
fi
[ -n "$WHEELHOUSE" ] || echo "CUDA libraries: GIP_CUDA_LIBRARY_PATH's, else the system's (no wheelhouse given)" | tee -a "$out/summary.txt"

cd "$work"
"$gip" --version | tee -a "$out/summary.txt"
"$gip" devices | tee -a "$out/summary.txt"
# Which CUDA libraries gip opens, and from where: an FFT (cuFFT), a runtime kernel (NVRTC) and a
# batch that decodes a JPEG on the GPU (nvJPEG), then the process's own map of loaded files.
"$py" - "$src" "$work/batch" >"$out/libraries.txt" 2>&1 <<'PY' || true
import os, sys
import numpy as np
import gip
print("gip", gip.__version__, "from", gip.__file__)
print("GIP_CUDA_LIBRARY_PATH =", os.environ.get("GIP_CUDA_LIBRARY_PATH", "(unset)"))
jpg = os.path.join(sys.argv[1], "data", "rocket.jpg")
probes = [
    ("cuFFT", lambda: gip.fft2(np.ones((64, 64), np.float32), device="cuda")),
    ("NVRTC", lambda: gip.compile('extern "C" __global__ void k(float *p) { p[0] = 1.0f; }',
                                  "probe.cu", cache=False)),
    ("nvJPEG", lambda: print("  decoder:", gip.run_batch("invert", [jpg], sys.argv[2], device="cuda",
                                                         decoder="nvjpeg", overwrite=True).decoder)),
]
for what, call in probes:
    try:
        call()
        print(what, "ok")
    except Exception as e:  # noqa: BLE001 - report and go on
        print(what, "failed:", e)
for line in open("/proc/self/maps"):
    path = line.split()[-1]
    if any(n in path for n in ("libcublas", "libcufft", "libnvrtc", "libcudnn", "libnvjpeg")):
        print("loaded:", path)
PY
awk '!seen[$0]++' "$out/libraries.txt" | tee -a "$out/summary.txt"

# The whole Python suite against the installed wheel: on this machine its GPU tests run.
set +e
# shellcheck disable=SC2086
"$py" -m pytest -q -p no:cacheprovider --rootdir "$work" -rs "$src/python/tests" ${PYTEST_ARGS:-} \
    >"$out/pytest.log" 2>&1
rc=$?
set -e
tail -n 3 "$out/pytest.log" | tee -a "$out/summary.txt"
skipped_cuda=$(sed -n 's/^SKIPPED \[\([0-9]*\)\].*no usable CUDA device.*/\1/p' "$out/pytest.log" |
    awk '{n += $1} END {print n + 0}')
echo "tests skipped for want of a CUDA device: $skipped_cuda" | tee -a "$out/summary.txt"
exit $rc
