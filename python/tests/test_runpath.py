# SPDX-License-Identifier: MIT
"""The installed extension module loads no shared library from the working folder: its RPATH and
RUNPATH have no empty or relative entry, and a folder holding crafted libraries under the names of
its dependencies does not change what `import gip` loads (tests/runpath/ has both checks)."""
import os
import shutil
import subprocess
import sys

import pytest

import gip

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "runpath")
needs_tools = pytest.mark.skipif(shutil.which("readelf") is None or shutil.which("cc") is None,
                                 reason="readelf (binutils) and cc are needed")


@needs_tools
def test_extension_runpath_has_no_relative_entry():
    r = subprocess.run(["sh", os.path.join(HERE, "check_runpath.sh"), gip._gip.__file__],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 ELF files checked, 0 bad" in r.stdout


@needs_tools
def test_import_in_a_folder_of_crafted_libraries():
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(gip.__file__)))
    env = dict(os.environ, NEEDED_OF=gip._gip.__file__,
               PYTHONPATH=os.pathsep.join([pkg_parent, os.environ.get("PYTHONPATH", "")]))
    code = "import gip, numpy as np; assert gip.invert(np.zeros((2, 2), np.uint8))[0, 0] == 255"
    r = subprocess.run(["sh", os.path.join(HERE, "crafted_lib_test.sh"), sys.executable, "-c", code],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("ok:"), r.stdout
