# SPDX-License-Identifier: MIT
"""Shared fixtures of the gip Python tests: sample images, seeded random arrays, CUDA skip."""
import os

import numpy as np
import pytest

import gip

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "data")
SAMPLES = ["astronaut.png", "chelsea.png", "coffee.png", "brick.png", "rocket.jpg"]

_usable = [d for d in gip.devices() if d["usable"]]
CUDA_REASON = ("no usable CUDA device: %s" % (gip.unavailable_reason() or "none listed")
               if not _usable else "")
requires_cuda = pytest.mark.skipif(not _usable, reason=CUDA_REASON)


@pytest.fixture(autouse=True)
def _cpu_default():
    """The comparisons run on the CPU unless a test asks for a device (GPU tests do)."""
    with gip.Device("cpu"):
        yield


def sample(name, flags=1):
    return gip.imread(os.path.join(DATA, name), flags)


def rand(shape, dtype=np.uint8, seed=0, lo=-2.0, hi=3.0):
    """Seeded random values over the whole range of an integer dtype; floats in [lo, hi)."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.uint8:
        return rng.integers(0, 256, shape, dtype=np.uint8)
    if dtype == np.uint16:
        return rng.integers(0, 65536, shape, dtype=np.uint16)
    if dtype == np.int16:
        return rng.integers(-32768, 32768, shape, dtype=np.int16)
    return rng.uniform(lo, hi, shape).astype(dtype)


# Shapes of the random tests: the awkward sizes of DESIGN.md (1001x777 kept to a few tests).
SHAPES = [(1, 1), (1, 17), (13, 42), (42, 13, 3), (31, 29, 4), (64, 48, 1)]
