# SPDX-License-Identifier: MIT
"""The ``gip`` console script of the wheel: runs the C tool installed in the package (gip/bin/gip)
with the same arguments, after pointing it at the CUDA libraries of NVIDIA's wheels."""

import os
import sys


def tool_path():
    """The path of the packaged gip executable."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "gip")


def main():
    from . import _cudalibs  # noqa: F401 - sets GIP_CUDA_LIBRARY_PATH for the tool

    path = tool_path()
    if not os.path.exists(path):
        sys.stderr.write("gip: the command-line tool is not in this installation (%s)\n" % path)
        return 127
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(path, [path] + sys.argv[1:])
