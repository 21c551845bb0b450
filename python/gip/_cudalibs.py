# SPDX-License-Identifier: MIT
"""Where libgip looks for the CUDA libraries it opens on first use (cuBLAS, cuFFT, NVRTC, cuDNN,
nvJPEG): the lib folders of NVIDIA's wheels installed beside gip (``pip install
'gip-imaging[cuda13]'``), given to the C library in GIP_CUDA_LIBRARY_PATH ahead of the loader's
own search path (the system CUDA). Nothing is loaded here; a folder set by the user comes first.
The variable is inherited by the ``gip`` tool, which the console script runs."""

import os

_VAR = "GIP_CUDA_LIBRARY_PATH"


def wheel_lib_dirs():
    """The lib folders of the installed nvidia-* wheels, CUDA 13's shared folder first."""
    try:
        import nvidia  # namespace package of NVIDIA's wheels
    except ImportError:
        return []
    dirs = []
    for root in list(getattr(nvidia, "__path__", [])):
        try:
            names = sorted(os.listdir(root))
        except OSError:
            continue
        # CUDA 13's wheels share nvidia/cu13/lib; cuDNN keeps nvidia/cudnn/lib.
        names.sort(key=lambda n: n != "cu13")
        for name in names:
            lib = os.path.join(root, name, "lib")
            if os.path.isdir(lib) and lib not in dirs:
                dirs.append(lib)
    return dirs


def add_wheel_dirs(environ=os.environ):
    """Appends the wheels' lib folders to GIP_CUDA_LIBRARY_PATH (kept when already listed)."""
    current = [d for d in environ.get(_VAR, "").split(os.pathsep) if d]
    added = [d for d in wheel_lib_dirs() if d not in current]
    if added:
        environ[_VAR] = os.pathsep.join(current + added)


add_wheel_dirs()
