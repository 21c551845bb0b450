# SPDX-License-Identifier: MIT
"""device='auto' for host arrays: run on the GPU only where that is faster.

A host array on a GPU run crosses the bus twice. For each registered operation (with its
parameters, dtype and channels) the first call on a host array of at least _MIN_BYTES measures
the CPU's rate on it (seconds per input byte, gip's CPU backend, best of three runs after a
warm-up, on a band of 16 MB of rows of a larger image or, where the operation changes the size,
on the whole image); the bus is measured once per
process (the transfer engine's time for host-in/host-out inverts of 1 MB and 32 MB, whose kernel
costs next to nothing: a fixed cost and a rate). A call then goes to the GPU when (bytes in + bytes out) over the bus rate,
plus the fixed cost of a GPU call, is below the CPU's estimate. gip.explain() shows the decision;
GIP_EXPLAIN=1 prints each new one on stderr."""
import os as _os
import sys as _sys
import threading as _threading
import time as _time

import numpy as _np

from . import _gip
from ._core import Device, _auto_target, _local

_MIN_BYTES = 64 << 10  # below this a host array stays on the CPU: the GPU's fixed cost dominates
_GPU_FIXED_S = 10e-6   # what Python adds to a GPU call (the engine's own fixed cost is measured)
_SAMPLE_BYTES = 16 << 20
_lock = _threading.Lock()
_bus = {}    # device index -> seconds per byte moved (in + out)
_cpu = {}    # key -> seconds per input byte on the CPU
_said = set()
_explain_env = _os.environ.get("GIP_EXPLAIN", "") not in ("", "0")


def _applies(device, inputs):
    """The model decides only for 'auto' calls on host numpy arrays with a usable GPU."""
    if device is not None and device != "auto":
        return False
    if getattr(_local, "stack", None):
        return False  # an explicit `with gip.Device(...)`
    from . import _core
    if _core._default_spec not in (None, "auto"):
        return False
    for a in inputs:
        if type(a) is not _np.ndarray:
            return False
    return _auto_target()[0] == "cuda"


def _time_best(fn, runs=2):
    best = None
    for _ in range(runs):
        t = _time.perf_counter()
        fn()
        t = _time.perf_counter() - t
        best = t if best is None or t < best else best
    return best


def _bus_model(index):
    """(fixed seconds, seconds per byte moved) of a host-in/host-out GPU call through the transfer
    engine, fitted to an invert of 1 MB and of 32 MB (its kernel costs next to nothing)."""
    model = _bus.get(index)
    if model is None:
        from ._core import _alloc
        from ._registry import _args
        ctx = Device(index).context
        args = _args("invert", {})
        t = []
        for shape in ((1024, 1024), (4096, 8192)):
            a = _np.zeros(shape, _np.uint8)
            out = _alloc(ctx, a, shape, _np.uint8, None, None)  # as a call's output is made
            _gip.op_apply(ctx, args, a, out)  # the engine's streams and buffers, made once
            t.append((_time_best(lambda: _gip.op_apply(ctx, args, a, out), 3), 2.0 * a.nbytes))
        per_byte = max((t[1][0] - t[0][0]) / (t[1][1] - t[0][1]), 1e-12)
        model = (max(t[0][0] - per_byte * t[0][1], 0.0), per_byte)
        _bus[index] = model
    return model


def _key(name, params, arr):
    try:
        p = tuple(sorted((k, repr(v)) for k, v in params.items()))
    except TypeError:
        p = repr(params)
    c = arr.shape[2] if arr.ndim == 3 else 1
    return (name, p, arr.dtype.str, c)


def _cpu_rate(key, args, inputs, result):
    rate = _cpu.get(key)
    if rate is None:
        from ._registry import _result
        src = inputs[0]
        ctx = Device("cpu").context
        sample = src
        # A band of rows of a large image (same-size operations); the whole image otherwise.
        if len(inputs) == 1 and src.nbytes > _SAMPLE_BYTES:
            rows = max(16, _SAMPLE_BYTES // max(1, src.nbytes // src.shape[0]))
            part = src[:rows]
            shape, dt = result(args, part.shape, part.dtype)
            if shape[:2] == part.shape[:2]:  # same-size operations: a band of rows tells the rate
                sample = part
        shape, dt = result(args, sample.shape, sample.dtype)
        out = _np.empty(shape, dt)
        rest = [i for i in inputs[1:]]

        def once():
            if rest:
                _gip.op_apply(ctx, args, sample, out, rest)
            else:
                _gip.op_apply(ctx, args, sample, out)
        once()  # tables, scratch and the thread pool made, caches warm
        rate = _time_best(once, 3) / sample.nbytes
        _cpu[key] = rate
    return rate


def decide(name, args, params, inputs, result, extra_inputs=None):
    """(device spec, explanation dict) for a registered operation on host `inputs` under 'auto'.
    `result(args, shape, dtype)` gives the output's numpy shape and dtype."""
    src = inputs[0]
    target = _auto_target()
    shape, dt = result(args, src.shape, src.dtype)
    out_bytes = _np.dtype(dt).itemsize
    for d in shape:
        out_bytes *= d
    in_bytes = sum(a.nbytes for a in inputs)
    why = {"operation": name, "bytes_in": in_bytes, "bytes_out": out_bytes}
    if in_bytes < _MIN_BYTES:
        why.update(device="cpu", reason="below %d bytes the GPU's fixed cost of about %.0f us "
                   "outweighs the computation" % (_MIN_BYTES, _GPU_FIXED_S * 1e6))
        return "cpu", why
    key = _key(name, params, src)
    with _lock:
        try:
            fixed, bus = _bus_model(target[1])
            cpu = _cpu_rate(key, args, [src] + list(extra_inputs or []), result)
        except Exception as e:  # an operation the CPU cannot run here: the GPU
            why.update(device="cuda:%d" % target[1], reason="the CPU could not be measured (%s)"
                       % e)
            return Device(target[1]), why
    t_cpu = cpu * src.nbytes
    t_gpu = bus * (in_bytes + out_bytes) + fixed + _GPU_FIXED_S
    gpu = t_gpu < t_cpu
    why.update(device="cuda:%d" % target[1] if gpu else "cpu", cpu_estimate_s=t_cpu,
               gpu_estimate_s=t_gpu, bus_bytes_per_s=1.0 / bus, cpu_bytes_per_s=1.0 / cpu,
               reason="%s: CPU %.3f ms (measured %.2f GB/s of input) against GPU %.3f ms (%d "
               "bytes over the measured %.1f GB/s, + %.0f us per call)" % (
                   "GPU" if gpu else "CPU", t_cpu * 1e3, 1e-9 / cpu, t_gpu * 1e3,
                   in_bytes + out_bytes, 1e-9 / bus, (fixed + _GPU_FIXED_S) * 1e6))
    if _explain_env:
        said = (key, gpu)
        if said not in _said:
            _said.add(said)
            print("gip auto: %s %s %s -> %s" % (name, src.shape, src.dtype, why["reason"]),
                  file=_sys.stderr)
    return (Device(target[1]) if gpu else "cpu"), why
