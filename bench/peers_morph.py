# SPDX-License-Identifier: MIT
"""The morph rows of bench/peers.py (see FAMILIES there): issue 41's erosion, opening, median,
bilateral, Laplacian and Canny on the GPU. The rows themselves (erode3 ... canny3_l2) and their
OpenCV peers are in bench/peers.py (OPS, OpenCVPeer); here are CuPy's, PyTorch's and Kornia's."""

OPS = {}
DST_SIZE = {}
BYTES = {}
# Kornia's rows (a torch variant: impl "kornia"), timed only where `import kornia` works.
TORCH_LIBS = {op: ["kornia"] for op in ("erode3", "erode15", "open5_ellipse", "median3", "median5",
                                        "median15", "bilateral9", "canny3_l2")}

ERODE_K = {"erode3": 3, "erode15": 15}
MEDIAN_K = {"median3": 3, "median5": 5, "median15": 15}
# cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)): rows 1..3 full, rows 0 and 4 the centre.
ELLIPSE5 = [[0, 0, 1, 0, 0], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [0, 0, 1, 0, 0]]
# cv2.Laplacian's ksize 3 kernel (cupyx.scipy.ndimage.laplace is [0 1 0; 1 -4 1; 0 1 0]).
LAPLACE3 = [[2.0, 0.0, 2.0], [0.0, -8.0, 0.0], [2.0, 0.0, 2.0]]


def _u8(fmt):
    return fmt in ("u8c1", "u8c3")


def _channels(fmt):
    return 3 if fmt.endswith("c3") else 1


# ---- CuPy (GPU) -------------------------------------------------------------------------------


def cupy(peer, op, fmt, src, dst):
    """cupyx.scipy.ndimage on interleaved HW / HWC arrays, channels apart (size 1 along C)."""
    cp, ndi = peer.cp, peer.ndi
    if not _u8(fmt):
        return None
    ch = _channels(fmt)

    def size2(k):
        return (k, k) if ch == 1 else (k, k, 1)

    if op in ERODE_K:
        k = ERODE_K[op]
        return (lambda i: ndi.grey_erosion(src[i], size=size2(k), output=dst[i], mode="nearest")), (
            f"cupyx.scipy.ndimage.grey_erosion size {k}x{k}, mode nearest (the same result as "
            "OpenCV's default border for a rectangle)")
    if op == "open5_ellipse":
        fp = cp.asarray(ELLIPSE5, dtype=bool)
        fp = fp if ch == 1 else fp[:, :, None]
        return (lambda i: ndi.grey_opening(src[i], footprint=fp, output=dst[i], mode="nearest")), (
            "cupyx.scipy.ndimage.grey_opening with OpenCV's 5x5 ellipse footprint, mode nearest "
            "(the same result as OpenCV's default border for this element)")
    if op in MEDIAN_K:
        k = MEDIAN_K[op]

        def run(i):
            ndi.median_filter(src[i], size=size2(k), output=dst[i], mode="nearest")

        return run, (f"cupyx.scipy.ndimage.median_filter size {k}x{k}, mode nearest (= replicate, "
                     "as cv2.medianBlur)")
    if op == "laplacian3":
        w = cp.asarray(LAPLACE3, dtype=cp.float32)
        w = w if ch == 1 else w[:, :, None]
        tmp = [cp.empty(s.shape, dtype=cp.int16) for s in src]

        def run(i):
            ndi.correlate(src[i], w, output=tmp[i], mode="mirror")
            cp.clip(tmp[i], 0, 255, out=tmp[i])
            cp.copyto(dst[i], tmp[i], casting="unsafe")

        return run, ("cupyx.scipy.ndimage.correlate with OpenCV's ksize-3 kernel [2 0 2; 0 -8 0; "
                     "2 0 2] (cupyx's laplace is the 5-point one) to s16, mode mirror, then clip "
                     "and cast to u8: three kernels")
    return None


# ---- PyTorch (GPU) ----------------------------------------------------------------------------


def _u8_kernels(body, x0):
    """Whether torch runs body on u8 tensors of this device (else it runs on f32)."""
    try:
        body(x0[..., :24, :24])
        return True
    except (RuntimeError, NotImplementedError, TypeError):
        return False


def _max_pool(F, x, kh, kw):
    """The maximum over a kh x kw window, the outside ignored (max_pool2d pads with -inf)."""
    return F.max_pool2d(x, (kh, kw), stride=1, padding=(kh // 2, kw // 2))


def torch(peer, op, fmt, src, dst):
    """Plain torch on planar (1, C, H, W) tensors."""
    th, F = peer.torch, peer.F
    if not _u8(fmt):
        return None
    ch = _channels(fmt)

    def made(body, what):
        u8 = _u8_kernels(body, src[0])
        note = what + ("; on u8" if u8 else "; u8 converted to f32 inside the run (torch has no "
                       "u8 kernel for it here)")

        def run(i):
            dst[i].copy_(body(src[i] if u8 else src[i].float()))

        return run, note

    if op in ERODE_K:
        k = ERODE_K[op]

        def body(x):  # min = 255 - max(255 - x)
            return 255 - _max_pool(F, 255 - x, k, k)

        return made(body, f"255 - max_pool2d({k}x{k}, stride 1)(255 - x): padding ignored as "
                          "OpenCV's default border; + copy into the output")
    if op == "open5_ellipse":

        def dilate(z):  # the 5x5 ellipse = rows 1..3 full (3x5) + the centre column (5x1)
            return th.maximum(_max_pool(F, z, 3, 5), _max_pool(F, z, 5, 1))

        def body(x):  # open = dilate(erode(x)), erode(x) = 255 - dilate(255 - x)
            return dilate(255 - dilate(255 - x))

        return made(body, "opening with the 5x5 ellipse as max_pool2d 3x5 and 5x1 + maximum, "
                          "twice (erosion through 255 - x); borders as OpenCV's default")
    if op in MEDIAN_K:
        k = MEDIAN_K[op]
        r = k // 2

        def body(x):
            p = F.pad(x, (r, r, r, r), mode="replicate").unfold(2, k, 1).unfold(3, k, 1)
            return p.reshape(*p.shape[:4], k * k).median(dim=-1).values

        return made(body, f"replicate pad + unfold {k}x{k} + median(dim) (a copy of {k * k} "
                          "values per pixel)")
    if op == "laplacian3":
        w = th.tensor(LAPLACE3, dtype=th.float32, device=src[0].device)
        w = w.reshape(1, 1, 3, 3).repeat(ch, 1, 1, 1)

        def run(i):
            x = F.pad(src[i].float(), (1, 1, 1, 1), mode="reflect")
            dst[i].copy_(F.conv2d(x, w, groups=ch).clamp_(0, 255))

        return run, ("conv2d with OpenCV's ksize-3 kernel per channel after reflect pad (= "
                     "reflect101), clamp to u8; u8 converted to f32 inside the run")
    return None


# ---- Kornia (GPU, on torch) -------------------------------------------------------------------

_kornia = []


def _import_kornia():
    """The kornia module, or None (said once) where it cannot be imported."""
    if not _kornia:
        try:
            import kornia  # noqa: F401
            import kornia.filters  # noqa: F401
            import kornia.morphology  # noqa: F401

            _kornia.append(kornia)
        except Exception as e:  # not installed, or not for this torch
            print(f"peer kornia unavailable: {type(e).__name__}: {e}".splitlines()[0])
            _kornia.append(None)
    return _kornia[0]


def _accepts(fn, name):
    import inspect

    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def torch_kornia(peer, op, fmt, src, dst):
    """Kornia's functions on planar (1, C, H, W) tensors: float images, so u8 is converted to f32
    inside the run and the result rounded back into the u8 output."""
    kornia = _import_kornia()
    if kornia is None or not _u8(fmt) or op not in TORCH_LIBS:
        return None
    th = peer.torch
    ch = _channels(fmt)
    dev = src[0].device
    kf, km = kornia.filters, kornia.morphology
    ver = f"kornia {kornia.__version__}: "
    conv = "; u8 -> f32 inside the run"

    if op in ERODE_K:
        k = ERODE_K[op]
        kern = th.ones(k, k, device=dev)
        return (lambda i: dst[i].copy_(km.erosion(src[i].float(), kern))), (
            ver + f"kornia.morphology.erosion {k}x{k} ones, default engine, geodesic border (= "
            "OpenCV's default)" + conv)
    if op == "open5_ellipse":
        kern = th.tensor(ELLIPSE5, dtype=th.float32, device=dev)
        return (lambda i: dst[i].copy_(km.opening(src[i].float(), kern))), (
            ver + "kornia.morphology.opening, OpenCV's 5x5 ellipse, default engine, geodesic "
            "border (= OpenCV's default)" + conv)
    if op in MEDIAN_K:
        k = MEDIAN_K[op]
        if _accepts(kf.median_blur, "border_type"):
            fn, border = (lambda x: kf.median_blur(x, (k, k), border_type="replicate")), (
                "replicate border (as cv2.medianBlur)")
        else:
            fn, border = (lambda x: kf.median_blur(x, (k, k))), "zero padding (cv2: replicate)"
        return (lambda i: dst[i].copy_(fn(src[i].float()))), (
            ver + f"kornia.filters.median_blur {k}x{k}, " + border + conv)
    if op == "bilateral9":

        def run(i):
            y = kf.bilateral_blur(src[i].float(), (9, 9), 75.0, (75.0, 75.0),
                                  border_type="reflect", color_distance_type="l1")
            dst[i].copy_(y.round_().clamp_(0, 255))

        return run, (ver + "kornia.filters.bilateral_blur 9x9 square window (cv2: disc of radius "
                     "4), sigmas 75, l1 colour distance, reflect border (= reflect101)" + conv)
    if op == "canny3_l2":

        def run(i):
            _, edges = kf.canny(src[i].float(), 50.0, 150.0, kernel_size=(1, 1), sigma=(1.0, 1.0))
            dst[i].copy_(edges.mul_(255))

        gray = "; 3 channels made grey first (cv2: the largest gradient)" if ch == 3 else ""
        return run, (ver + "kornia.filters.canny 50, 150 with a 1x1 Gaussian (no blur), Sobel 3, "
                     "L2 magnitude, its own suppression, hysteresis iterated to a fixed point "
                     "with a host check per step" + gray + conv)
    return None
