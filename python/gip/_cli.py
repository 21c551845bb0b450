# SPDX-License-Identifier: MIT
"""The wheel's ``gip`` command: runs the C tool installed in the package (gip/bin/gip) with the
same arguments, after pointing it at the CUDA libraries of NVIDIA's wheels (gip/_cudalibs.py).
The command (packaging/gip-command) loads this file by its path, without importing the gip package
and numpy with it, so that it adds milliseconds, not a third of a second, to each run."""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def tool_path():
    """The path of the packaged gip executable."""
    return os.path.join(HERE, "bin", "gip")


def main():
    path = os.path.join(HERE, "_cudalibs.py")
    spec = importlib.util.spec_from_file_location("_gip_cudalibs", path)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))  # sets GIP_CUDA_LIBRARY_PATH
    tool = tool_path()
    if not os.path.exists(tool):
        sys.stderr.write("gip: the command-line tool is not in this installation (%s)\n" % tool)
        return 127
    os.execv(tool, [tool] + sys.argv[1:])
    return 127


if __name__ == "__main__":
    sys.exit(main())
