#!/bin/sh
# SPDX-License-Identifier: MIT
# Prints the folder that CMake's NVJPEG_ROOT hint should name, installing nvJPEG's headers and
# library from PyPI (the nvidia-nvjpeg wheel, ~4 MB) when nvcc is present but the CUDA toolkit has
# no nvjpeg.h; prints nothing when the toolkit has it or when there is no CUDA at all (then gip is
# built without nvJPEG, or finds it in the toolkit). Used by the Makefile before cmake and pip.
PYTHON=${PYTHON:-python3}
WHEEL="nvidia-nvjpeg==13.3.2.43"
command -v nvcc >/dev/null 2>&1 || exit 0
cuda=$(dirname "$(dirname "$(command -v nvcc)")")
[ -f "$cuda/include/nvjpeg.h" ] && exit 0
find_root() {
    "$PYTHON" - <<'PY' 2>/dev/null
import os
try:
    import nvidia
except ImportError:
    raise SystemExit(1)
for p in nvidia.__path__:
    root = os.path.join(p, "cu13")
    if os.path.exists(os.path.join(root, "include", "nvjpeg.h")):
        print(root)
        raise SystemExit(0)
raise SystemExit(1)
PY
}
find_root && exit 0
"$PYTHON" -m pip install -q "$WHEEL" >&2 || exit 0
find_root || true
