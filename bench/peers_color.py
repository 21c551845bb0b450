# SPDX-License-Identifier: MIT
"""The color rows of bench/peers.py (see FAMILIES there): the same rows as bench/ops_color.c.

Inputs as gip-bench makes them: f32 colour rows take RGB in 0..1 (the random image / 256), the
NV12 frame is encoded from the u8c3 source before timing (OpenCV's I420 with U and V
interleaved, as gip's encoder), addWeighted's second image is 255 - src, the LUT is v*v/255.
OpenCV rows run on cv2.setNumThreads(--threads); CuPy and PyTorch rows on buffer sets."""

# op -> (default formats, destination dtype or None, destination channels or None). gip-bench's
# point3_nofuse (the same pipeline unfused) is gip's own comparison and has no peer row.
# gip-bench rows with no peer (gip's own unfused pipeline, against point3).
GIP_ONLY = {"point3_nofuse"}

OPS = {
    "hsv": (["u8c3", "f32c3"], None, None),
    "lab": (["u8c3", "f32c3"], None, None),
    "nv12_bgr": (["u8c3"], "uint8", 3),
    "bayer_bgr": (["u8c1"], None, 3),
    "threshold": (["u8c1", "u8c3", "f32c1"], None, None),
    "addweighted": (["u8c1", "u8c3", "f32c1"], None, None),
    "lut": (["u8c1", "u8c3"], None, None),
    "normalize": (["u8c1", "u8c3"], None, None),
    "point3": (["u8c1", "u8c3"], "float32", None),
    "point3_cvt": (["u8c1", "u8c3"], "float32", None),
    "point3_mad": (["f32c1", "f32c3"], None, None),
    "point3_thr": (["f32c1", "f32c3"], None, None),
}

_SIZE = {"uint8": 1, "uint16": 2, "float32": 4}
_FMT = {"u8c1": ("uint8", 1), "u8c3": ("uint8", 3), "u8c4": ("uint8", 4), "u16c1": ("uint16", 1),
        "f32c1": ("float32", 1), "f32c3": ("float32", 3)}


def _even(w, h):
    return w & ~1, h & ~1


def _image_bytes(fmt, w, h):
    dt, ch = _FMT[fmt]
    return w * h * ch * _SIZE[dt]


DST_SIZE = {"nv12_bgr": _even}
BYTES = {
    # the NV12 frame (w*h*3/2) in, BGR (w*h*3) out
    "nv12_bgr": lambda fmt, w, h: _even(w, h)[0] * _even(w, h)[1] * 9 // 2,
    # two inputs and the output
    "addweighted": lambda fmt, w, h: 3 * _image_bytes(fmt, w, h),
}

P3_SCALE = 1.0 / 255.0


def lut_table(np):
    return np.array([(v * v + 127) // 255 for v in range(256)], dtype=np.uint8)


def nv12_frame(cv2, np, bgr):
    """The NV12 frame of a BGR u8 image (even sizes): cv2's I420 with U and V interleaved."""
    h, w = bgr.shape[:2]
    i420 = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420).reshape(-1)
    q = (w // 2) * (h // 2)
    u, v = i420[w * h:w * h + q], i420[w * h + q:w * h + 2 * q]
    uv = np.stack([u, v], axis=-1).reshape(h // 2, w)
    return np.ascontiguousarray(np.concatenate([i420[:w * h].reshape(h, w), uv], axis=0))


def _second(x):
    """addWeighted's second image: 255 - x (x's dtype; u8 never wraps)."""
    return 255 - x


# ---- OpenCV (CPU) ---------------------------------------------------------------------------


def opencv(peer, op, fmt, src, dst):
    cv2, np = peer.cv2, peer.np
    if op not in OPS:
        return None
    f32 = src.dtype == np.float32
    ch = 1 if src.ndim == 2 else src.shape[2]
    if op in ("hsv", "lab"):
        s = src * np.float32(1.0 / 256.0) if f32 else src
        code = cv2.COLOR_BGR2HSV if op == "hsv" else cv2.COLOR_BGR2Lab
        note = "cv2.cvtColor"
        if f32 and op == "lab":
            note += " (f32: OpenCV interpolates a table, gip uses the CIE formulas)"
        return (lambda i: cv2.cvtColor(s, code, dst=dst)), note
    if op == "nv12_bgr":
        h, w = dst.shape[:2]
        frame = nv12_frame(cv2, np, np.ascontiguousarray(src[:h, :w]))
        return (lambda i: cv2.cvtColor(frame, cv2.COLOR_YUV2BGR_NV12, dst=dst)), (
            "cv2.cvtColor COLOR_YUV2BGR_NV12 on the frame made before timing")
    if op == "bayer_bgr":
        return (lambda i: cv2.cvtColor(src, cv2.COLOR_BayerBG2BGR, dst=dst)), "cv2.cvtColor"
    if op == "threshold":
        return (lambda i: cv2.threshold(src, 127, 255, cv2.THRESH_BINARY, dst=dst)), "cv2.threshold"
    if op == "addweighted":
        b = _second(src)
        return (lambda i: cv2.addWeighted(src, 0.6, b, 0.4, 0.0, dst=dst)), "cv2.addWeighted"
    if op == "lut":
        t = lut_table(np)
        return (lambda i: cv2.LUT(src, t, dst=dst)), "cv2.LUT"
    if op == "normalize":
        return (lambda i: cv2.normalize(src, dst, 0, 255, cv2.NORM_MINMAX)), (
            "cv2.normalize NORM_MINMAX")
    scale4 = (P3_SCALE,) * 4
    mad = np.zeros((ch, ch + 1), np.float32)
    for c in range(ch):
        mad[c, c], mad[c, ch] = 2.0, -0.5
    # cv2.multiply by a scalar is 2.5x slower on 3 channels than on the same elements seen as
    # one: it runs on one-channel views.
    flat_src = src.reshape(src.shape[0], -1)
    if op == "point3_cvt":
        flat_dst = dst.reshape(dst.shape[0], -1)
        return (lambda i: cv2.multiply(flat_src, scale4, dst=flat_dst, dtype=cv2.CV_32F)), (
            "cv2.multiply by the scalar 1/255 to CV_32F (on a one-channel view)")
    if op == "point3_mad":
        return (lambda i: cv2.transform(src, mad, dst=dst)), (
            "cv2.transform with the affine matrix 2x - 0.5 (one pass)")
    if op == "point3_thr":
        return (lambda i: cv2.threshold(src, 0.5, 1.0, cv2.THRESH_BINARY, dst=dst)), (
            "cv2.threshold")
    if op == "point3":
        t1, t2 = np.zeros(dst.shape, np.float32), np.zeros(dst.shape, np.float32)
        flat_t1 = t1.reshape(t1.shape[0], -1)

        def run(i):
            cv2.multiply(flat_src, scale4, dst=flat_t1, dtype=cv2.CV_32F)
            cv2.transform(t1, mad, dst=t2)
            cv2.threshold(t2, 0.5, 1.0, cv2.THRESH_BINARY, dst=dst)

        return run, ("three passes: cv2.multiply to CV_32F (one-channel view), cv2.transform, "
                     "cv2.threshold (f32 temporaries made before timing)")
    return None


# ---- CuPy (GPU) -----------------------------------------------------------------------------


def _ew(peer, key, in_params, out_params, body):
    cp = peer.cp
    k = peer.elementwise.get(key)
    if k is None:
        k = peer.elementwise[key] = cp.ElementwiseKernel(in_params, out_params, body, key)
    return k


# OpenCV's u8 BGR to HSV (color_hsv.simd.hpp, RGB2HSV_b): 12-bit fixed point, its division
# tables computed in place (saturate_cast<int> of the same doubles), hue 0..180. One pixel a thread.
HSV_U8_BODY = r"""
int b = s[3 * i], g = s[3 * i + 1], r = s[3 * i + 2];
int v = max(max(b, g), r), vmin = min(min(b, g), r), diff = v - vmin;
int vr = v == r ? -1 : 0, vg = v == g ? -1 : 0;
int sdiv = v ? (int)rint((double)(255 << 12) / (double)v) : 0;
int hdiv = diff ? (int)rint((double)(180 << 12) / (6.0 * diff)) : 0;
int sat = (diff * sdiv + (1 << 11)) >> 12;
int h = (vr & (g - b)) + (~vr & ((vg & (b - r + 2 * diff)) + ((~vg) & (r - g + 4 * diff))));
h = (h * hdiv + (1 << 11)) >> 12;
h += h < 0 ? 180 : 0;
d[3 * i] = (unsigned char)h;
d[3 * i + 1] = (unsigned char)sat;
d[3 * i + 2] = (unsigned char)v;
"""

# OpenCV's NV12 to BGR (color_yuv.simd.hpp: BT.601 limited range, 20-bit fixed point), one pixel
# a thread: f is the w x h*3/2 frame, d the BGR image.
NV12_BODY = r"""
int x = (int)(i % w), row = (int)(i / w);
int yy = f[(long long)row * w + x];
const unsigned char *uv = &f[(long long)(h + (row >> 1)) * w + (x & ~1)];
int u = (int)uv[0] - 128, v = (int)uv[1] - 128;
int ruv = (1 << 19) + 1673527 * v;
int guv = (1 << 19) - 852492 * v - 409993 * u;
int buv = (1 << 19) + 2116026 * u;
int y = max(0, yy - 16) * 1220542;
d[3 * i] = (unsigned char)min(max((y + buv) >> 20, 0), 255);
d[3 * i + 1] = (unsigned char)min(max((y + guv) >> 20, 0), 255);
d[3 * i + 2] = (unsigned char)min(max((y + ruv) >> 20, 0), 255);
"""


def cupy(peer, op, fmt, src, dst):
    cp = peer.cp
    if op not in OPS:
        return None
    f32 = src[0].dtype == cp.float32
    if op == "hsv" and not f32:
        k = _ew(peer, "gip_bench_bgr2hsv_u8", "raw uint8 s", "raw uint8 d", HSV_U8_BODY)
        n = src[0].shape[0] * src[0].shape[1]
        return (lambda i: k(src[i], dst[i], size=n)), (
            "cupy.ElementwiseKernel of OpenCV's u8 BGR2HSV fixed point, one pixel a thread")
    if op == "nv12_bgr":
        import cv2  # the frame is made as the OpenCV row makes it, on the host, before timing

        h, w = dst[0].shape[:2]
        frame = nv12_frame(cv2, peer.np, peer.np.ascontiguousarray(cp.asnumpy(src[0])[:h, :w]))
        frames = [cp.asarray(frame) for _ in src]
        k = _ew(peer, "gip_bench_nv12_bgr", "raw uint8 f, int32 w, int32 h", "raw uint8 d",
                NV12_BODY)
        return (lambda i: k(frames[i], cp.int32(w), cp.int32(h), dst[i], size=w * h)), (
            "cupy.ElementwiseKernel of OpenCV's NV12 to BGR fixed point, one pixel a thread")
    if op == "threshold":
        k = _ew(peer, "gip_bench_thresh127", "T x", "T y", "y = x > (T)127 ? (T)255 : (T)0")
        return (lambda i: k(src[i], dst[i])), (
            "cupy.ElementwiseKernel x > 127 ? 255 : 0 (one pass; cupy.where has no out)")
    if op == "addweighted":
        b = [_second(x) for x in src]
        if f32:
            k = _ew(peer, "gip_bench_addw_f32", "float32 a, float32 b", "float32 y",
                    "y = fmaf(a, 0.6f, fmaf(b, 0.4f, 0.0f))")
            note = "cupy.ElementwiseKernel fma(a, 0.6, fma(b, 0.4, 0)) (one pass)"
        else:
            k = _ew(peer, "gip_bench_addw_u8", "uint8 a, uint8 b", "uint8 y",
                    "y = (unsigned char)fminf(fmaxf(rintf(fmaf(a, 0.6f, fmaf(b, 0.4f, 0.0f))), "
                    "0.0f), 255.0f)")
            note = ("cupy.ElementwiseKernel fma(a, 0.6, fma(b, 0.4, 0)), rounded to even and "
                    "saturated to u8 (one pass)")
        return (lambda i: k(src[i], b[i], dst[i])), note
    if op == "lut":
        t = cp.asarray(lut_table(peer.np))
        return (lambda i: cp.take(t, src[i], out=dst[i])), "cupy.take(table, x, out=dst): table[x]"
    if op == "normalize":
        lo = [cp.zeros((), src[0].dtype) for _ in src]
        hi = [cp.zeros((), src[0].dtype) for _ in src]
        k = _ew(peer, "gip_bench_norm_u8", "uint8 x, raw uint8 lo, raw uint8 hi", "uint8 y",
                "float s = hi[0] > lo[0] ? 255.0f / (float)(hi[0] - lo[0]) : 0.0f; "
                "y = (unsigned char)fminf(fmaxf(rintf(((float)x - (float)lo[0]) * s), 0.0f), "
                "255.0f)")

        def run(i):
            src[i].min(out=lo[i])
            src[i].max(out=hi[i])
            k(src[i], lo[i], hi[i], dst[i])

        return run, ("cupy min() and max() (two reductions, no host sync) + one "
                     "ElementwiseKernel scaling (single precision)")
    if op == "point3_cvt":
        s = cp.float32(P3_SCALE)
        return (lambda i: cp.multiply(src[i], s, out=dst[i], dtype=cp.float32)), (
            "cupy.multiply(x, float32(1/255)) computed in f32")
    if op == "point3_mad":
        k = _ew(peer, "gip_bench_mad", "float32 x", "float32 y", "y = fmaf(x, 2.0f, -0.5f)")
        return (lambda i: k(src[i], dst[i])), "cupy.ElementwiseKernel fma(x, 2, -0.5) (one pass)"
    if op == "point3_thr":
        k = _ew(peer, "gip_bench_thr05", "float32 x", "float32 y", "y = x > 0.5f ? 1.0f : 0.0f")
        return (lambda i: k(src[i], dst[i])), "cupy.ElementwiseKernel x > 0.5 ? 1 : 0 (one pass)"
    if op == "point3":
        k = _ew(peer, "gip_bench_point3", "uint8 x", "float32 y",
                "float a = (float)x * (1.0f / 255.0f); float b = a * 2.0f - 0.5f; "
                "y = b > 0.5f ? 1.0f : 0.0f")
        return (lambda i: k(src[i], dst[i])), (
            "the three steps fused by hand in one cupy.ElementwiseKernel (one pass)")
    return None  # hsv f32, lab, bayer_bgr: no CuPy function


# ---- PyTorch (GPU) --------------------------------------------------------------------------


def torch(peer, op, fmt, src, dst):
    tc = peer.torch
    if op not in OPS:
        return None
    u8 = src[0].dtype == tc.uint8
    dev = src[0].device
    if op == "threshold":
        hi = tc.tensor(255, dtype=src[0].dtype, device=dev)
        lo = tc.tensor(0, dtype=src[0].dtype, device=dev)
        return (lambda i: tc.where(src[i] > 127, hi, lo, out=dst[i])), (
            "torch.where(x > 127, 255, 0, out=dst) (two kernels: compare, select)")
    if op == "addweighted":
        b = [_second(x) for x in src]
        if u8:

            def run(i):
                y = src[i].float().mul_(0.6).add_(b[i].float(), alpha=0.4)
                dst[i].copy_(y.round_().clamp_(0, 255))

            return run, ("float(), mul_, add_, round_, clamp_, copy_ to u8 (eager, "
                         "f32 temporaries)")
        return (lambda i: tc.lerp(b[i], src[i], 0.6, out=dst[i])), (
            "torch.lerp(b, a, 0.6) = 0.6 a + 0.4 b (one kernel; last-bit rounding may differ)")
    if op == "lut":
        t = tc.from_numpy(lut_table(peer.np)).to(dev)

        def run(i):
            dst[i].view(-1).copy_(tc.take(t, src[i].view(-1).long()))

        return run, "torch.take(table, x.long()) (u8 indices widened to int64 first), copy_"
    if op == "normalize":

        def run(i):
            lo, hi = tc.aminmax(src[i])
            s = 255.0 / (hi - lo).float()
            dst[i].copy_(((src[i].float() - lo) * s).round_().clamp_(0, 255))

        return run, ("torch.aminmax (one reduction) + eager float scaling, round_, clamp_, "
                     "copy_ (no host sync)")
    if op == "point3_cvt":
        return (lambda i: tc.mul(src[i], P3_SCALE, out=dst[i])), "torch.mul(x, 1/255, out=dst)"
    if op == "point3_mad":
        c = tc.tensor(-0.5, dtype=tc.float32, device=dev)
        return (lambda i: tc.add(c, src[i], alpha=2.0, out=dst[i])), (
            "torch.add(-0.5, x, alpha=2, out=dst) (one kernel)")
    if op == "point3_thr":
        one = tc.tensor(1.0, dtype=tc.float32, device=dev)
        zero = tc.tensor(0.0, dtype=tc.float32, device=dev)
        return (lambda i: tc.where(src[i] > 0.5, one, zero, out=dst[i])), (
            "torch.where(x > 0.5, 1, 0, out=dst) (two kernels)")
    if op == "point3":
        one = tc.tensor(1.0, dtype=tc.float32, device=dev)
        zero = tc.tensor(0.0, dtype=tc.float32, device=dev)

        def run(i):
            y = tc.mul(src[i], P3_SCALE).mul_(2.0).sub_(0.5)
            tc.where(y > 0.5, one, zero, out=dst[i])

        return run, "eager PyTorch, one kernel a step (mul, mul_, sub_, gt, where)"
    return None  # hsv, lab, nv12_bgr, bayer_bgr: not in PyTorch (kornia is not installed)
