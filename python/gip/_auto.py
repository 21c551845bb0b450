# SPDX-License-Identifier: MIT
"""device='auto' for host arrays: run on the GPU only where that is faster.

A host array on a GPU run crosses the bus twice. For each registered operation (with its
parameters, dtype and channels) the first call on a host array of at least _MIN_BYTES measures
the CPU's rate on it (seconds per input byte, gip's CPU backend, best of three runs after a
warm-up, on a band of 16 MB of rows of a larger image or, where the operation changes the size,
on the whole image); the bus is measured once per
process (the transfer engine's time for host-in/host-out inverts of 1 MB and 32 MB, whose kernel
costs next to nothing: a fixed cost and a rate). A call then goes to the GPU when (bytes in + bytes out) over the bus rate,
plus the fixed cost of a GPU call, is below the CPU's estimate. Each call's measured time then
refines the side it ran on (the CPU's rate, or what the operation's GPU calls take beyond the bus
model). gip.explain() shows the decision; GIP_EXPLAIN=1 prints each new one on stderr."""
import os as _os
import sys as _sys
import threading as _threading
import time as _time

import numpy as _np

_ndarray = _np.ndarray

from . import _core, _gip
from ._core import Device, _auto_target, _local

_MIN_BYTES = 64 << 10  # below this a host array stays on the CPU: the GPU's fixed cost dominates
_GPU_FIXED_S = 10e-6   # what Python adds to a GPU call (the engine's own fixed cost is measured)
_SAMPLE_BYTES = 16 << 20
_lock = _threading.Lock()
_bus = {}    # device index -> seconds per byte moved (in + out)
_cpu = {}    # key -> seconds per input byte on the CPU
_extra = {}  # key -> seconds a GPU call of the operation took beyond the bus model (launches)
_said = set()
_explain_env = _os.environ.get("GIP_EXPLAIN", "") not in ("", "0")


def _applies(device, inputs):
    """The model decides only for 'auto' calls on host numpy arrays with a usable GPU."""
    if device is not None and device != "auto":
        return False
    if getattr(_local, "stack", None):
        return False  # an explicit `with gip.Device(...)`
    if _core._default_spec not in (None, "auto"):
        return False
    for a in inputs:
        if type(a) is not _ndarray:
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
    """The operation with its parameters, dtype and channels. Called on every 'auto' call: the
    parameters as given when they hash (a call site passes them in one order), else their text."""
    p = tuple(params.items())
    try:
        hash(p)
    except TypeError:
        p = repr(sorted(params.items(), key=lambda kv: kv[0]))
    return (name, p, arr.dtype.char, arr.shape[2] if arr.ndim == 3 else 1)


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
    """(device spec, facts) for a registered operation on host `inputs` under 'auto';
    `result(args, shape, dtype)` gives the output's numpy shape and dtype. facts feed observe()
    and explanation(); it is None where the array is too small to measure."""
    src = inputs[0]
    in_bytes = src.nbytes
    for a in inputs[1:]:
        in_bytes += a.nbytes
    if in_bytes < _MIN_BYTES:
        return "cpu", None
    target = _auto_target()
    shape, dt = result(args, src.shape, src.dtype)
    out_bytes = _np.dtype(dt).itemsize
    for d in shape:
        out_bytes *= d
    key = _key(name, params, src)
    with _lock:
        try:
            fixed, bus = _bus_model(target[1])
            cpu = _cpu_rate(key, args, [src] + list(extra_inputs or []), result)
        except Exception as e:  # an operation the CPU cannot run here: the GPU
            return Device(target[1]), (key, target[1], None, str(e))
        extra = _extra.get(key, 0.0)
    modelled = bus * (in_bytes + out_bytes) + fixed + _GPU_FIXED_S
    t_cpu = cpu * src.nbytes
    gpu = modelled + extra < t_cpu
    facts = (key, target[1], gpu, (src.nbytes, in_bytes, out_bytes, modelled, extra, t_cpu, bus,
                                   cpu, fixed))
    if _explain_env and (key, gpu) not in _said:
        _said.add((key, gpu))
        print("gip auto: %s %s %s -> %s" % (name, src.shape, src.dtype,
                                            explanation(name, facts)["reason"]), file=_sys.stderr)
    return (Device(target[1]) if gpu else "cpu"), facts


def explanation(name, facts):
    """gip.explain's dict for decide()'s facts."""
    if facts is None:
        return {"operation": name, "device": "cpu",
                "reason": "below %d bytes the GPU's fixed cost outweighs the computation"
                          % _MIN_BYTES}
    key, index, gpu, nums = facts
    if gpu is None:
        return {"operation": name, "device": "cuda:%d" % index,
                "reason": "the CPU could not be measured (%s)" % nums}
    src_bytes, in_bytes, out_bytes, modelled, extra, t_cpu, bus, cpu, fixed = nums
    t_gpu = modelled + extra
    return {"operation": name, "device": "cuda:%d" % index if gpu else "cpu",
            "bytes_in": in_bytes, "bytes_out": out_bytes, "cpu_estimate_s": t_cpu,
            "gpu_estimate_s": t_gpu, "bus_bytes_per_s": 1.0 / bus, "cpu_bytes_per_s": 1.0 / cpu,
            "reason": "%s: CPU %.3f ms (measured %.2f GB/s of input) against GPU %.3f ms (%d "
                      "bytes over the measured %.1f GB/s, + %.0f us per call%s)" % (
                          "GPU" if gpu else "CPU", t_cpu * 1e3, 1e-9 / cpu, t_gpu * 1e3,
                          in_bytes + out_bytes, 1e-9 / bus, (fixed + _GPU_FIXED_S) * 1e6,
                          ", + %.0f us measured for this operation" % (extra * 1e6)
                          if extra else "")}


def observe(facts, seconds):
    """Refines the estimates with a call's measured time (the call decide() sent where it said):
    the CPU's rate for the operation, or what its GPU calls take beyond the bus model (launches
    of its kernels, its bands), each as an average with the earlier value."""
    if facts is None or facts[2] is None:
        return
    key, _, gpu, nums = facts
    with _lock:
        if not gpu:
            rate = seconds / nums[0]
            _cpu[key] = 0.5 * (_cpu.get(key, rate) + rate)
        else:
            extra = max(0.0, seconds - nums[3])
            _extra[key] = 0.5 * (_extra.get(key, extra) + extra)
