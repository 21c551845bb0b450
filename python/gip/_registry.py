# SPDX-License-Identifier: MIT
"""The operation registry in Python (include/gip/op.h, docs/operations.md): the descriptors
(:func:`ops`), one generic call for every registered operation (:func:`apply`), and functions
generated from the descriptors, with their signatures and docstrings: ``gip.op.NAME`` for every
operation, ``gip.NAME`` where no cv2-named wrapper has that name, ``gip.Pipeline.NAME`` and
``gip.dask.NAME``. An operation added to the library appears in all of them without an edit
here. Arguments are checked by the registry (its ranges, choices and messages); a value of the
wrong Python type raises gip.InvalidType."""
import copy as _copy
import inspect as _inspect
import keyword as _keyword
import textwrap as _textwrap

import numpy as _np

from . import _auto, _gip
from ._core import (_CODE_DTYPE, _DTYPE_CODE, _DTYPE_NAME, _NAME_DTYPE, InvalidType, _alloc,
                    _check_dtype, _choose, _dtype_of, _finish, _image_out, _prep, _raise,
                    Image, InvalidArgument)

_table_cache = None


def _table():
    """{name: descriptor} of the registered operations, read once."""
    global _table_cache
    if _table_cache is None:
        _table_cache = {d["name"]: d for d in _gip.ops()}
    return _table_cache


def ops():
    """The registered operations, in name order: a list of dicts with the operation's name,
    family, summary, doc, cv_name (the OpenCV function it follows, or None), dtypes (registry
    names: 'u8', 'u16', 's16', 'f32') and channels it accepts, flags (pointwise, scalars: other
    keywords are named scalars, whole: reads the whole image, banded: changes the size but is
    cut by output rows in row streaming and gip.dask, in_place, involution) and params:
    per parameter its name, type ('int', 'double', 'bool', 'choice', 'size', 'list', 'string',
    'matrix'), positional, required, odd, min, max, count, choices [(name, value)], default (as
    text, None when required), doc, example (text or None), accepts (what the registry accepts, in
    its words) and pytype (what Python takes)."""
    return [_public(d) for d in _table().values()]


def op_info(name):
    """The descriptor of the operation `name` (see :func:`ops`); gip.InvalidArgument naming the
    operations when there is none."""
    d = _table().get(name) if isinstance(name, str) else None
    if d is None:
        _args(name, {})  # raises the registry's message
    return _public(d)


def _public(d):
    return _copy.deepcopy({k: v for k, v in d.items() if not k.startswith("_")})


def _normalise(desc, params):
    """Python conveniences the registry does not know: numpy dtypes for dtype choices."""
    names = desc.get("_dtype_params") if desc is not None else None
    if names is None and desc is not None:
        names = desc["_dtype_params"] = tuple(
            p["name"] for p in desc["params"]
            if p["type"] == "choice" and any(c[0] in _NAME_DTYPE for c in p["choices"]))
    if not names or not params:
        return params
    out = None
    for n in names:
        v = params.get(n)
        if not isinstance(v, (type, _np.dtype)):
            continue
        try:
            name = _DTYPE_NAME.get(_np.dtype(v))
        except TypeError:
            continue
        if name:
            out = dict(params) if out is None else out
            out[n] = name
    return params if out is None else out


def _args(name, params):
    """The checked arguments (_gip.Args) of operation `name` from Python values."""
    if not isinstance(name, str):
        _raise(InvalidType, "the operation's name must be a str, got %s %r"
               % (type(name).__name__, name))
    return _gip.op_args(name, _normalise(_table().get(name), params))


def _result(args, shape, dtype):
    """(numpy shape, dtype) of the result for an input of numpy `shape` and `dtype`: 1-channel
    results are (H, W) unless the input was (H, W, 1)."""
    dtype = _np.dtype(dtype)
    _check_dtype(dtype)
    if len(shape) not in (2, 3):
        _raise(InvalidArgument, "src: expected a 2-D (H, W) or 3-D (H, W, C) array, got %d "
               "dimensions" % len(shape))
    if shape[0] < 1 or shape[1] < 1:
        _raise(InvalidArgument, "src: empty array (%d x %d)" % (shape[0], shape[1]))
    c = shape[2] if len(shape) == 3 else 1
    if c not in (1, 3, 4):
        _raise(InvalidArgument, "src: %d channels; 1, 3 or 4 are accepted" % c)
    w, h, oc, odt = args.output_shape(shape[1], shape[0], c, _DTYPE_CODE[dtype])
    if oc == 1 and (len(shape) == 2 or c != 1):
        return (h, w), _CODE_DTYPE[odt]
    return (h, w, oc), _CODE_DTYPE[odt]


def _split_inputs(name, params):
    """(params, inputs): the images an operation reads besides src (its declared inputs, given as
    keywords by their names) taken out of the keywords, in declaration order, None where absent;
    inputs is None for an operation that reads none."""
    desc = _table().get(name) if isinstance(name, str) else None
    if not desc or not desc["inputs"]:
        return params, None
    params = dict(params)
    return params, [params.pop(i["name"], None) for i in desc["inputs"]]


def _run(name, src, dst, device, params):
    """The generic call: arguments checked first (before any upload), the output made as every
    gip function makes it, the operation run where the data lives (with the extra images it
    reads, moved where src goes)."""
    params, inputs = _split_inputs(name, params)
    a = _args(name, params)
    given = [i for i in inputs if i is not None] if inputs else []
    if type(src) is _np.ndarray and _auto._applies(device, [src] + given):
        device = _auto.decide(name, a, params, [src] + given, _result, given)[0]
    ctx, prepared, up = _prep(device, [src] + given, host_run=True)
    s, rest = prepared[0], iter(prepared[1:])
    shape, dt = _result(a, s.shape, _dtype_of(s))
    out = _alloc(ctx, s, shape, dt, dst, up)
    if inputs is None:
        _gip.op_apply(ctx, a, s, out)
    else:
        _gip.op_apply(ctx, a, s, out, [None if i is None else next(rest) for i in inputs])
    return _finish(ctx, out, up, dst)


@_image_out
def apply(name, src, /, dst=None, *, device=None, **params):
    """Runs the registered operation `name` (see :func:`ops`, docs/operations.md) on `src` with
    its parameters as keywords, e.g. ``gip.apply("gaussian", img, ksize=15, sigma=2)``.

    Values: int, float, bool and str as the parameter's type takes them; a size as N or (width,
    height); a list as a number or a sequence; a matrix (kernel) as a 2-D array or rows of
    numbers; a choice by its name ('reflect101', 'f32') or, for dtype choices, a numpy dtype.
    None leaves a parameter at its default. Operations that take named scalars (map, stencil)
    take any other keyword as one. Bad values raise the registry's message (gip.InvalidArgument),
    values of the wrong type gip.InvalidType (also a TypeError).

    Host arrays in give host arrays out (a host gip.Image gives a gip.Image); device arrays
    (gip.Image, CuPy, PyTorch CUDA tensors) give a gip.Image on their device. dst: an output of
    the result's shape and dtype; device: 'auto', 'cpu', 'cuda', 'cuda:N' or a gip.Device."""
    return _run(name, src, dst, device, params)


def explain(name, src, /, *, device=None, **params):
    """Where gip.apply(name, src, device=device, **params) would run and why, as a dict: device
    ('cpu' or 'cuda:N'), reason (one line), and for host arrays under device='auto' the
    estimates it compared (cpu_estimate_s, gpu_estimate_s, the measured bus and CPU rates). The
    first call for an operation measures the CPU's rate on `src` (see docs/transfers.md)."""
    params, inputs = _split_inputs(name, params)
    a = _args(name, params)
    given = [i for i in inputs if i is not None] if inputs else []
    if type(src) is _np.ndarray and _auto._applies(device, [src] + given):
        return _auto.decide(name, a, params, [src] + given, _result, given)[1]
    gpu = next((i for k, i in (_gip.where(x) for x in [src] + given) if k == "cuda"), None)
    dev = _choose(device, gpu)
    if gpu is not None:
        reason = "device arrays run on their device"
    elif dev.kind == "cuda":
        reason = ("host arrays on the GPU (device=%r): through the transfer engine (pinned "
                  "staging, copies overlapped with the computation)" % (device,))
    elif (device is None or device == "auto") and not _gip.devices():
        reason = "no usable GPU: %s" % _gip.unavailable_reason()
    else:
        reason = "the CPU (device=%r or the default device)" % (device,)
    return {"operation": name, "device": dev.name, "reason": reason}


@_image_out
def _call(name, src, params, dst=None, device=None):
    return _run(name, src, dst, device, params)


# ---- functions generated from the descriptors ---------------------------------------------------
class _Required:
    def __repr__(self):
        return "<required>"


_REQUIRED = _Required()


def _number(text):
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        return float(text)


def _default(p):
    """A parameter's default as the Python value that means it."""
    t = p["default"]
    if t is None:
        return _REQUIRED
    kind = p["type"]
    try:
        if kind == "int":
            return int(t)
        if kind == "double":
            return float(t)
        if kind == "bool":
            return t.strip() in ("1", "true")
        if kind == "size":
            w, _, h = t.lower().partition("x")
            return int(w) if not h else (int(w), int(h))
        if kind == "list":
            values = tuple(_number(x) for x in t.split(","))
            return values[0] if len(values) == 1 else values
        if kind == "matrix":
            return t or None
        if kind == "choice" and t.lstrip("-").isdigit():
            return int(t)
    except ValueError:
        pass
    return t


def _range(p):
    """What a parameter accepts, in Python's terms (the registry's own words are p["accepts"])."""
    kind, odd = p["type"], "odd " if p["odd"] else ""
    span = "%g..%g" % (p["min"], p["max"]) if p["min"] is not None else ""
    if kind == "int":
        return "An %sinteger in %s" % (odd, span)
    if kind == "double":
        return "In %s" % span
    if kind == "size":
        return "Each an %sinteger in %s" % (odd, span)
    if kind == "list":
        return "In %s" % span if p["count"] == 1 else "1 to %d numbers, each in %s" % (
            p["count"], span)
    if kind == "choice":
        return "One of %s" % ", ".join(repr(_default({"type": "choice", "default": c[0]}))
                                       for c in p["choices"])
    if kind == "matrix":
        return "At most %dx%d; the text form %r also works" % (p["count"], p["count"],
                                                                "1,2,1;2,4,2;1,2,1")
    if kind == "bool":
        return "True or False"
    return "Accepts %s" % p["accepts"]


def _dtype_words(desc):
    names = [str(_NAME_DTYPE[n]) if n in _NAME_DTYPE else n for n in desc["dtypes"]]
    chans = [str(c) for c in desc["channels"]]

    def words(xs):
        return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " or " + xs[-1]
    return "%s with %s channel%s" % (words(names), words(chans), "" if chans == ["1"] else "s")


def _docstring(desc, call, first, extras_doc, returns):
    w = 79
    out = [desc["summary"], ""]
    out += _textwrap.wrap(desc["doc"], w) + [""]
    facts = []
    if desc["cv_name"]:
        facts.append("Follows %s." % desc["cv_name"])
    facts.append("Input: %s." % _dtype_words(desc))
    if desc["pointwise"]:
        facts.append("Point-wise.")
    if desc["whole"]:
        facts.append("Reads the whole image (not tiled or chunked).")
    out += _textwrap.wrap(" ".join(facts), w) + [""]
    out += ["Parameters", "----------"]
    out += first
    for p in desc["params"]:
        d = _default(p)
        head = "%s : %s, %s" % (p["name"], p["pytype"],
                                "required" if d is _REQUIRED else "default %r" % (d,))
        if p["positional"]:
            head += ", positional"
        out.append(head)
        text = "%s. %s." % (p["doc"].rstrip("."), _range(p))
        out += _textwrap.wrap(text, w, initial_indent="    ", subsequent_indent="    ")
    for i in desc["inputs"]:
        out.append("%s : array, %s, keyword" % (i["name"], "optional" if i["optional"]
                                                 else "required"))
        out += _textwrap.wrap(i["doc"].rstrip(".") + ".", w, initial_indent="    ",
                              subsequent_indent="    ")
    if desc["scalars"]:
        out.append("**scalars : float")
        out.append("    Named scalars of the expression: any other keyword, e.g. k=2.5.")
    out += extras_doc
    out += ["", "Returns", "-------"] + returns + [""]
    out.append("The operation %r of the registry (docs/operations.md): %s." % (desc["name"], call))
    return "\n".join(out)


def _signature(desc, first, extras):
    """An inspect.Signature for help() and editors: the image, the positional parameters, the
    others keyword-only, then the extras (dst, device ...)."""
    P = _inspect.Parameter
    params = [P(first, P.POSITIONAL_ONLY)]
    defaulted = False
    for p in desc["params"]:
        if not p["positional"]:
            continue
        d = _default(p)
        if d is _REQUIRED and not defaulted:
            params.append(P(p["name"], P.POSITIONAL_OR_KEYWORD))
        else:
            defaulted = True
            params.append(P(p["name"], P.POSITIONAL_OR_KEYWORD, default=d))
    for p in desc["params"]:
        if not p["positional"]:
            d = _default(p)
            params.append(P(p["name"], P.KEYWORD_ONLY,
                            **({} if d is _REQUIRED else {"default": d})))
    for i in desc["inputs"]:
        params.append(P(i["name"], P.KEYWORD_ONLY, **({"default": None} if i["optional"] else {})))
    params += [P(n, P.KEYWORD_ONLY, default=d) for n, d in extras]
    if desc["scalars"]:
        params.append(P("scalars", P.VAR_KEYWORD))
    try:
        return _inspect.Signature(params)
    except ValueError:  # a parameter named as one of the extras: the generic form
        return _inspect.Signature([P(first, P.POSITIONAL_ONLY), P("args", P.VAR_POSITIONAL),
                                   P("params", P.VAR_KEYWORD)])


def _function(desc, target, first="src", extras=(("dst", None), ("device", None)),
              first_doc=None, extras_doc=None, returns=None, call=None):
    """A function for the operation `desc` that maps its positional parameters by declaration
    order and calls target(name, first, params, **extras)."""
    name = desc["name"]
    positional = [p["name"] for p in desc["params"] if p["positional"]]
    extra_names = [e for e, _ in extras]

    def fn(obj, *args, **kw):
        if len(args) > len(positional):
            _raise(InvalidType, "%s takes %s by position after the image, got %d values"
                   % (name, "no parameter" if not positional else
                      "at most %d parameter%s (%s)" % (len(positional),
                                                       "" if len(positional) == 1 else "s",
                                                       ", ".join(positional)), len(args)))
        ext = {e: kw.pop(e) for e in extra_names if e in kw}
        params = dict(zip(positional, args))
        for k in kw:
            if k in params:
                _raise(InvalidType, "%s: %s is given by position and by name" % (name, k))
        params.update(kw)
        return target(name, obj, params, **ext)

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "gip.op"
    fn.__signature__ = _signature(desc, first, extras)
    fn.__doc__ = _docstring(
        desc, call or "gip.apply(%r, src, ...)" % name,
        first_doc or ["src : array",
                      "    The image: a numpy array, or a gip.Image, CuPy array or PyTorch tensor "
                      "on a",
                      "    device; (H, W) or (H, W, C)."],
        extras_doc if extras_doc is not None else [
            "dst : array, optional",
            "    The output, of the result's shape and dtype, where the result is made.",
            "device : str or gip.Device, optional",
            "    'auto' (where the data lives; host arrays on the default device), 'cpu', "
            "'cuda',",
            "    'cuda:N'."],
        returns or ["numpy.ndarray for a host array (a gip.Image for a host gip.Image); a "
                    "gip.Image", "for device input."])
    return fn


def _functions():
    """{name: function} for every registered operation (gip.op)."""
    return {name: _function(d, _call) for name, d in _table().items()
            if name.isidentifier() and not _keyword.iskeyword(name)}
