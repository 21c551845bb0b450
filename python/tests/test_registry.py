# SPDX-License-Identifier: MIT
"""The operation registry from Python, walked table-driven: every registered operation through
gip.apply on every dtype and channel count it declares, equal to the same step of a pipeline
written as text and, where the operation follows a cv2 function with a direct equivalent, to cv2
(uint8, exactly); on CUDA too (equal to the CPU for integer results). The bad-input matrix of
every parameter (below and above its range, an even value where it must be odd, a value of the
wrong type, an unknown name, a missing required one) raises the registry's message. The generated
functions (gip.op, gip.NAME, Pipeline methods, gip.dask) exist for every operation and their
docstrings name every parameter. The table-driven tests name no operation (only the cv2
equivalents do, by the cv2 function a descriptor follows): a new operation is tested by adding it
to the library."""
import fractions
import inspect
import math

import cv2
import numpy as np
import pytest

import gip
from conftest import CUDA_REASON, rand, requires_cuda

OPS = gip.ops()
NAMES = [d["name"] for d in OPS]
DTYPES = {"u8": np.uint8, "u16": np.uint16, "s16": np.int16, "f32": np.float32}
SHAPE = (13, 42)


def from_text(p, t):
    """A parameter's value from its text form (the registry's example or default) as Python
    takes it."""
    kind = p["type"]
    if kind == "int":
        return int(t)
    if kind == "double":
        return float(t)
    if kind == "bool":
        return t in ("1", "true")
    if kind == "size":
        w, _, h = t.lower().partition("x")
        return int(w) if not h else (int(w), int(h))
    if kind == "list":
        v = tuple(float(x) for x in t.split(","))
        return v[0] if len(v) == 1 else v
    if kind == "matrix":
        return [[float(fractions.Fraction(x.strip())) for x in row.split(",")]
                for row in t.split(";")]
    return t  # choice, string


def example(desc):
    """(text, python) values of the parameters with an example: a working call."""
    text = {p["name"]: p["example"] for p in desc["params"] if p["example"] is not None}
    py = {p["name"]: from_text(p, t) for p in desc["params"] for n, t in text.items()
          if p["name"] == n}
    return text, py


def more_images(desc, a, seed):
    """{name: array} for the images an operation reads besides src, as declared: a's size, a's
    dtype and channels where the input has src's type, else the widest dtype it accepts and a's
    channels or the first count it accepts; random values."""
    out = {}
    for k, i in enumerate(desc["inputs"]):
        dt = a.dtype if i["same_type"] or not i["dtypes"] else DTYPES[i["dtypes"][-1]]
        c = a.shape[2] if a.ndim == 3 else 1
        if not i["same_type"] and i["channels"] and c not in i["channels"]:
            c = i["channels"][0]
        out[i["name"]] = rand(a.shape[:2] + ((c,) if c != 1 else ()), dt, seed=seed + 7 * k)
    return out


def pipeline_free(desc):
    """Whether a pipeline can run the operation: it reads no required image besides src."""
    return all(i["optional"] for i in desc["inputs"])


def quoted(v):
    return "'%s'" % v if "'" not in v else '"%s"' % v


def step_text(desc, text):
    return " ".join([desc["name"]] + ["%s=%s" % (k, quoted(v)) for k, v in text.items()])


def cases():
    for d in OPS:
        for dt in d["dtypes"]:
            if dt not in DTYPES:
                continue
            for c in d["channels"]:
                yield pytest.param(d, dt, c, id="%s-%s-%dch" % (d["name"], dt, c))


# operations whose frame layout refuses SHAPE: yuv takes even sizes and heights of 3k, yuv420
# even sizes, yuv422 an even width
FRAME_SHAPE = {"yuv": (24, 36), "yuv420": (24, 36), "yuv422": (24, 36)}


def image(dt, c, seed, name=None):
    shape = FRAME_SHAPE.get(name, SHAPE)
    shape = shape if c == 1 else shape + (c,)
    return rand(shape, DTYPES[dt], seed=seed)


def same(got, want, dt, what, levels=0, rtol=0.0):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, \
        "%s: %s %s, expected %s %s" % (what, got.shape, got.dtype, want.shape, want.dtype)
    if got.dtype == np.float32:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, err_msg=what)
        return
    d = np.abs(got.astype(np.int64) - want.astype(np.int64))
    if d.max() > levels:
        i = np.unravel_index(d.argmax(), d.shape)
        pytest.fail("%s: first difference beyond %d at %s: got %d, expected %d"
                    % (what, levels, i, got[i], want[i]))


# ---- cv2's direct equivalents, by the cv2 function a descriptor names ---------------------------
def _ksize(v, default):
    v = default if v is None else v
    return (v, v) if isinstance(v, int) else tuple(v)


def _cvt(a, p):
    """gray (RGB order) or cvt's code, by its cv2 name."""
    if "pattern" in p:  # bayer: a mosaic
        return cv2.cvtColor(a, getattr(cv2, "COLOR_Bayer%s2%s" % (p["pattern"].upper(),
                                                                  p.get("to", "bgr").upper())))
    if "order" in p:  # yuv420, yuv422: a frame from BGR/RGB(A)
        f = cv2.cvtColor(a, getattr(cv2, "COLOR_%s%s2YUV_%s" % (
            p["order"].upper(), "A" if a.shape[2] == 4 else "", p["layout"].upper())))
        return f.reshape(f.shape[0], -1)  # 4:2:2: cv2's (H, W, 2) as gip's (H, 2 W) bytes
    if "layout" in p:  # yuv: a frame
        return cv2.cvtColor(a, getattr(cv2, "COLOR_YUV2%s_%s" % (p.get("to", "bgr").upper(),
                                                                 p["layout"].upper())))
    if "code" not in p:
        return a if a.ndim == 2 else cv2.cvtColor(
            a, cv2.COLOR_RGB2GRAY if a.shape[2] == 3 else cv2.COLOR_RGBA2GRAY)
    names = {n.lower(): n for n in dir(cv2) if n.startswith("COLOR_")}
    return cv2.cvtColor(a, getattr(cv2, names["color_" + p["code"]]))


def _second(p):
    """The second operand of an arithmetic step: src2, or value as cv2's Scalar."""
    if p.get("src2") is not None:
        return p["src2"]
    v = p.get("value", 0)
    v = list(v) if isinstance(v, (list, tuple)) else [v] * 4
    return tuple(v + [v[-1]] * (4 - len(v)))


def _arith(fn, masked=True):
    """cv2's function; where it takes no mask, gip's 0 outside the mask applied after it."""
    def ref(a, p):
        m = p.get("mask")
        if masked or m is None:
            return fn(a, _second(p), **({"mask": m} if m is not None else {}))
        r = fn(a, _second(p))
        return np.where((m != 0)[..., None] if r.ndim == 3 else m != 0, r, 0).astype(r.dtype)
    return ref


CV2 = {
    "cv2.GaussianBlur": lambda a, p: cv2.GaussianBlur(a, _ksize(p.get("ksize"), 0),
                                                      p.get("sigma", 0)),
    "cv2.boxFilter": lambda a, p: cv2.boxFilter(a, -1, _ksize(p.get("ksize"), 3)),
    "cv2.filter2D": lambda a, p: cv2.filter2D(a, -1, np.array(p["kernel"], np.float32)),
    "cv2.Sobel": lambda a, p: cv2.convertScaleAbs(
        cv2.Sobel(a, cv2.CV_16S, p.get("dx", 1), p.get("dy", 0), ksize=int(p.get("ksize", 3)))),
    "cv2.bitwise_not": lambda a, p: cv2.bitwise_not(a),
    "cv2.cvtColor": lambda a, p: _cvt(a, p),
    "cv2.flip": lambda a, p: cv2.flip(a, int(p["code"])),
    "cv2.threshold": lambda a, p: cv2.threshold(
        a, float(p.get("thresh", 0)), float(p.get("maxval", 255)),
        {"binary": 0, "binary_inv": 1, "trunc": 2, "tozero": 3, "tozero_inv": 4}[
            p.get("type", "binary")] | (0 if "thresh" in p else
                                        {"otsu": 8, "triangle": 16}[p.get("method", "otsu")]))[1],
    "cv2.add": _arith(cv2.add),
    "cv2.subtract": _arith(cv2.subtract),
    "cv2.multiply": _arith(cv2.multiply, False),
    "cv2.divide": _arith(cv2.divide, False),
    "cv2.absdiff": _arith(cv2.absdiff, False),
    "cv2.bitwise_and": _arith(cv2.bitwise_and),
    "cv2.bitwise_or": _arith(cv2.bitwise_or),
    "cv2.bitwise_xor": _arith(cv2.bitwise_xor),
    "cv2.addWeighted": lambda a, p: cv2.addWeighted(a, float(p["alpha"]), p["src2"],
                                                    float(p["beta"]), float(p.get("gamma", 0))),
    "cv2.extractChannel": lambda a, p: cv2.extractChannel(a, int(p.get("channel", 0))),
    "cv2.copyTo": lambda a, p: cv2.copyTo(a, p["mask"]),
}


@pytest.mark.parametrize("desc,dt,c", list(cases()))
def test_apply_cpu(desc, dt, c):
    """gip.apply == the pipeline step written as text == gip.op.NAME == cv2 (uint8)."""
    name = desc["name"]
    text, params = example(desc)
    a = image(dt, c, seed=len(name) + c, name=name)
    params.update(more_images(desc, a, seed=c))
    got = gip.apply(name, a, device="cpu", **params)
    same(getattr(gip.op, name)(a, device="cpu", **params), got, dt, "%s: gip.op" % name)
    if pipeline_free(desc):
        # the step runs without the optional inputs (a second operand, a mask): so does apply
        bare = gip.apply(name, a, device="cpu",
                         **{k: v for k, v in params.items()
                            if k not in [i["name"] for i in desc["inputs"]]})
        pipe = gip.Pipeline(step_text(desc, text), device="cpu")
        same(bare, pipe(a), dt,
             "%s %s %dch: apply vs pipeline %r" % (name, dt, c, step_text(desc, text)))
        shape, odt = pipe.output_shape(a.shape, a.dtype)
        assert np.asarray(got).shape == shape and np.asarray(got).dtype == odt
    else:
        required = [i["name"] for i in desc["inputs"] if not i["optional"]]
        with pytest.raises(gip.InvalidArgument, match="reads a second image \\(%s\\)"
                           % required[0]):
            gip.Pipeline(step_text(desc, text), device="cpu")
        with pytest.raises(gip.InvalidArgument, match="input %s is required" % required[0]):
            gip.apply(name, a, device="cpu",
                      **{k: v for k, v in params.items() if k != required[0]})
    ref = CV2.get(desc["cv_name"])
    if dt == "u8" and ref is not None:
        same(got, ref(a, params), dt, "%s %dch vs %s" % (name, c, desc["cv_name"]))


@requires_cuda
@pytest.mark.parametrize("desc,dt,c", list(cases()))
def test_apply_cuda(desc, dt, c):
    """On the GPU: host in, host out and device in, gip.Image out; equal to the CPU for integer
    results (a level for the FFT's spectrum), to the GPU pipeline exactly."""
    name = desc["name"]
    text, params = example(desc)
    a = image(dt, c, seed=len(name) + c, name=name)
    more = more_images(desc, a, seed=c)
    params.update(more)
    cpu = np.asarray(gip.apply(name, a, device="cpu", **params))
    got = gip.apply(name, a, device="cuda", **params)
    assert isinstance(got, np.ndarray)
    levels = 1 if desc["family"] == "fft" else 0
    same(got, cpu, dt, "%s %s %dch: cuda vs cpu" % (name, dt, c), levels, rtol=1e-4)
    dev_params = dict(params, **{k: gip.upload(v) for k, v in more.items()})
    dev = gip.apply(name, gip.upload(a), **dev_params)
    assert isinstance(dev, gip.Image) and dev.is_cuda
    same(dev.download(), got, dt, "%s: device in" % name)
    if pipeline_free(desc):
        # the step runs without the optional inputs: so does the apply it is compared with
        bare = gip.apply(name, a, device="cuda",
                         **{k: v for k, v in params.items() if k not in more})
        pipe = gip.Pipeline(step_text(desc, text), device="cuda")
        same(pipe(a), bare, dt, "%s: cuda pipeline" % name, rtol=1e-6)


def test_cuda_skip_reason():
    """Says why the CUDA half of this file is skipped (or that it runs)."""
    if CUDA_REASON:
        pytest.skip(CUDA_REASON)


def test_undeclared_input_refused():
    """A dtype or channel count the descriptor does not declare: Unsupported, the registry's
    message naming what is accepted."""
    for d in OPS:
        _, params = example(d)
        bad = [dt for dt in DTYPES if dt not in d["dtypes"]]
        for dt in bad:
            with pytest.raises(gip.Unsupported) as e:
                gip.apply(d["name"], image(dt, d["channels"][0], 0, d["name"]), device="cpu",
                          **params)
            assert str(e.value).startswith("%s: input %s with" % (d["name"], dt)), str(e.value)


# ---- the bad-input matrix ----------------------------------------------------------------------
def bad_values(p):
    """(label, value, exception class, compare with the pipeline's message) for one parameter."""
    kind, out = p["type"], []
    if kind in ("int", "size", "double", "list"):
        integral = kind in ("int", "size")
        for label, v in (("below", p["min"]), ("above", p["max"])):
            step = 1 if integral else max(1.0, abs(v))
            x = v - step if label == "below" else v + step
            if not integral and not math.isfinite(x):
                x = -math.inf if label == "below" else math.inf
            if integral:
                x = int(x)
            # the text form has no negative sizes: the parser's message is about the text
            cmp = math.isfinite(x) and not (kind == "size" and x < 0)
            out.append((label, x, gip.InvalidArgument, cmp))
        if p["odd"]:
            out.append(("even", 2, gip.InvalidArgument, True))
        out.append(("type", 1.5 if integral else "x", gip.InvalidType, False))
    elif kind == "bool":
        out += [("above", 2, gip.InvalidArgument, False), ("type", 0.5, gip.InvalidType, False)]
    elif kind == "choice":
        out += [("unknown", "no-such-choice", gip.InvalidArgument, True),
                ("type", 1.5, gip.InvalidType, False)]
    elif kind == "string":
        out.append(("type", 5, gip.InvalidType, False))
    elif kind == "matrix":
        n = p["count"] + 1
        out += [("above", [[1.0] * n] * n, gip.InvalidArgument, False),
                ("type", 5, gip.InvalidType, False)]
    return out


def matrix_cases():
    for d in OPS:
        for p in d["params"]:
            for label, v, cls, cmp in bad_values(p):
                yield pytest.param(d, p, v, cls, cmp, id="%s-%s-%s" % (d["name"], p["name"], label))


def text_of(v):
    if isinstance(v, (list, tuple)):
        return ",".join(text_of(x) for x in v)
    return repr(v) if isinstance(v, float) else str(v)


@pytest.mark.parametrize("desc,p,value,cls,cmp", list(matrix_cases()))
def test_bad_parameter(desc, p, value, cls, cmp):
    """The registry's message, the same one the pipeline parser gives for the same value."""
    name = desc["name"]
    _, params = example(desc)
    params[p["name"]] = value
    a = image(desc["dtypes"][0], desc["channels"][0], 0, desc["name"])
    with pytest.raises(cls) as e:
        gip.apply(name, a, device="cpu", **params)
    msg = str(e.value)
    assert msg.startswith("%s: %s " % (name, p["name"])), msg
    assert e.value.code == 100
    if cmp:
        text, _ = example(desc)
        text[p["name"]] = text_of(value)
        with pytest.raises(gip.InvalidArgument) as pe:
            gip.Pipeline(step_text(desc, text), device="cpu")
        assert pe.value.reason == msg, (pe.value.reason, msg)
    # nothing is made: the same call through a generated function raises the same
    with pytest.raises(cls) as e2:
        getattr(gip.op, name)(a, device="cpu", **params)
    assert str(e2.value) == msg


@pytest.mark.parametrize("desc", OPS, ids=NAMES)
def test_unknown_and_required(desc):
    name = desc["name"]
    _, params = example(desc)
    a = image(desc["dtypes"][0], desc["channels"][0], 0, desc["name"])
    if desc["scalars"]:
        # other keywords are named scalars: a number is taken, anything else is a type error
        with pytest.raises(gip.InvalidType, match="scalar nope"):
            gip.apply(name, a, device="cpu", nope="x", **params)
    else:
        with pytest.raises(gip.InvalidArgument) as e:
            gip.apply(name, a, device="cpu", nope=1, **params)
        names = ", ".join(p["name"] for p in desc["params"]) or "none"
        assert str(e.value) == "%s has no parameter 'nope'; it has: %s" % (name, names)
    for p in desc["params"]:
        if p["required"]:
            missing = {k: v for k, v in params.items() if k != p["name"]}
            with pytest.raises(gip.InvalidArgument) as e:
                gip.apply(name, a, device="cpu", **missing)
            assert str(e.value).startswith("%s: %s is required" % (name, p["name"]))


def test_unknown_operation():
    with pytest.raises(gip.InvalidArgument) as e:
        gip.apply("no_such_op", np.zeros((4, 4), np.uint8))
    assert str(e.value).startswith("no operation 'no_such_op'; the operations are: ")
    assert all(n in str(e.value) for n in NAMES)
    with pytest.raises(gip.InvalidType):
        gip.apply(3, np.zeros((4, 4), np.uint8))


# ---- generated functions -------------------------------------------------------------------------
@pytest.mark.parametrize("desc", OPS, ids=NAMES)
def test_generated(desc):
    """gip.op.NAME, gip.NAME (unless a cv2-named function has the name), Pipeline.NAME and
    gip.dask.NAME exist for every operation; their docstrings and signatures name every
    parameter, its type, and the summary."""
    name = desc["name"]
    fn = getattr(gip.op, name)
    assert name in gip.op.__all__
    top = getattr(gip, name)
    assert top is fn or top.__module__.startswith("gip._"), name  # a cv2-named wrapper
    method = getattr(gip.Pipeline, name)
    docs = [fn.__doc__]
    if method.__qualname__ == "Pipeline." + name and method.__module__ == "gip._pipeline" and \
            getattr(method, "__signature__", None) is not None:
        docs.append(method.__doc__)
    for doc in docs:
        assert doc.startswith(desc["summary"])
        for p in desc["params"]:
            assert "\n%s : %s" % (p["name"], p["pytype"]) in doc, (name, p["name"])
    sig = inspect.signature(fn)
    inputs = [i["name"] for i in desc["inputs"]]
    assert [p["name"] for p in desc["params"]] == [
        n for n in sig.parameters if n not in ["src", "dst", "device", "scalars"] + inputs]
    for i in desc["inputs"]:
        q = sig.parameters[i["name"]]
        assert q.kind is inspect.Parameter.KEYWORD_ONLY
        assert (q.default is inspect.Parameter.empty) != i["optional"], i["name"]
        assert "\n%s : array" % i["name"] in fn.__doc__
    for p in desc["params"]:
        q = sig.parameters[p["name"]]
        assert (q.default is inspect.Parameter.empty) == p["required"], p["name"]
        if not p["required"]:
            # the shown default is the registry's: passing it changes nothing
            assert q.default is not None or p["type"] == "matrix"


def test_positional_parameters():
    """Positional parameters map by declaration order after the image; too many is a type error,
    and so is one given by position and by name."""
    for d in OPS:
        pos = [p for p in d["params"] if p["positional"]]
        _, params = example(d)
        a = image(d["dtypes"][0], d["channels"][0], 1, d["name"])
        params.update(more_images(d, a, seed=2))
        fn = getattr(gip.op, d["name"])
        args = [params.pop(p["name"]) if p["name"] in params else from_text(p, p["default"])
                for p in pos]
        want = gip.apply(d["name"], a, **dict(zip([p["name"] for p in pos], args)), **params)
        same(fn(a, *args, **params), want, d["dtypes"][0], d["name"])
        with pytest.raises(gip.InvalidType):
            fn(a, *(args + [0]), **params)
        if pos:
            with pytest.raises(gip.InvalidType, match="by position and by name"):
                fn(a, *args, **dict(params, **{pos[0]["name"]: args[0]}))


def test_ops_descriptors():
    """ops() copies the registry; op_info(name) is one of them; an unknown name is refused."""
    assert NAMES == sorted(NAMES) and len(NAMES) >= 12
    d = gip.op_info("gaussian")
    assert d == OPS[NAMES.index("gaussian")]
    d["params"].clear()
    assert gip.op_info("gaussian")["params"]
    with pytest.raises(gip.InvalidArgument):
        gip.op_info("no_such_op")
    for d in OPS:
        assert set(d) >= {"name", "family", "summary", "doc", "cv_name", "params", "inputs",
                          "dtypes", "channels", "pointwise", "whole", "scalars"}
        for i in d["inputs"]:
            assert set(i) == {"name", "optional", "same_size", "same_type", "dtypes",
                              "channels", "doc"} and i["doc"]
        for p in d["params"]:
            assert p["type"] in ("int", "double", "bool", "choice", "size", "list", "string",
                                 "matrix") and p["accepts"] and p["doc"]


def test_numpy_dtype_for_dtype_choices():
    a = rand((9, 11, 3), np.uint8)
    want = gip.apply("convert", a, dtype="f32", scale=0.5)
    for dt in (np.float32, np.dtype(np.float32)):
        np.testing.assert_array_equal(gip.apply("convert", a, dtype=dt, scale=0.5), want)


def test_pipeline_step_pickles():
    import pickle
    k = np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], np.float32)
    p = gip.Pipeline(device="cpu").step("filter", kernel=k, border="replicate").flip(1)
    q = pickle.loads(pickle.dumps(p))
    a = rand((20, 17, 3), np.uint8)
    np.testing.assert_array_equal(p(a), q(a))
    np.testing.assert_array_equal(
        p(a), cv2.flip(cv2.filter2D(a, -1, k, borderType=cv2.BORDER_REPLICATE), 1))


# ---- Dask: every operation through gip.dask.apply ------------------------------------------------
@pytest.mark.parametrize("desc", OPS, ids=NAMES)
def test_dask_apply(desc):
    """Chunks overlap by the operation's halo: the result equals the whole-image one (chunks
    smaller than the halo merged); size-changing operations with row bands run by output row
    chunks; other whole-image operations are refused unless single_chunk."""
    da = pytest.importorskip("dask.array")
    gd = pytest.importorskip("gip.dask")
    name = desc["name"]
    _, params = example(desc)
    dt, c = desc["dtypes"][0], 3 if 3 in desc["channels"] else desc["channels"][0]
    hw = FRAME_SHAPE.get(name, (61, 47))
    a = rand(hw if c == 1 else hw + (c,), DTYPES[dt], seed=3)
    d = da.from_array(a, chunks=(17, 12) + ((c,) if c != 1 else ()))
    if not pipeline_free(desc):
        with pytest.raises(gip.InvalidArgument, match="reads a second image"):
            gd.apply(name, d, device="cpu", **params)
        return
    want = gip.apply(name, a, device="cpu", **params)
    if desc["whole"] and desc["banded"]:
        banded = gd.apply(name, d, device="cpu", **params)
        assert len(banded.chunks[0]) > 1 or want.shape[0] == 1  # cut by output rows
        same(banded.compute(scheduler="sync"), want, dt, "gip.dask %s by row bands" % name)
        got = gd.apply(name, d, device="cpu", single_chunk=True, **params)
    elif desc["whole"]:
        with pytest.raises(ValueError, match="reads the whole image"):
            gd.apply(name, d, device="cpu", **params)
        got = gd.apply(name, d, device="cpu", single_chunk=True, **params)
    else:
        got = getattr(gd, name)(d, device="cpu", **params) if name not in gd.__all__ else \
            gd.apply(name, d, device="cpu", **params)
    same(got.compute(scheduler="sync"), want, dt, "gip.dask %s" % name)
