# SPDX-License-Identifier: MIT
"""Smoke test: every example runs to the end (on the default device) and writes its images."""
import os
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
CASES = {
    "custom_kernel_blur.py": (["--size", "96"], ["mean3x3.png"]),
    "sobel_conv2d.py": ([], ["edge_detection.jpg", "sobel_magnitude.png"]),
    "gaussian_timing.py": (["--runs", "3"], ["blur.jpg"]),
    "fft_spectrum.py": ([], ["fft_spectrum.jpg"]),
    "invert_colors.py": ([], ["inverted.jpg"]),
    "style_transfer.py": (["--size", "32", "--iters", "3"], ["style_transfer.jpg"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_runs(name, tmp_path):
    args, outputs = CASES[name]
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), "--out", str(tmp_path)] +
                       args, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "gip" in r.stdout and " on " in r.stdout
    for o in outputs:
        assert (tmp_path / o).stat().st_size > 0
