# SPDX-License-Identifier: MIT
"""The geometry rows of bench/peers.py (see FAMILIES there): issue 39's resize, warps, remap, flip
and rotate 90, the same rows as bench/ops_geometry.c. The matrices and the remap maps follow the
formulas of ops_geometry.c exactly (the same double arithmetic, maps rounded to float32)."""
import math

_U8 = ["u8c1", "u8c3"]

# op -> interpolation name, destination size rule
RESIZE = {}
for _inter in ("linear", "area", "cubic"):
    for _scale in ("d2", "d17", "u2"):
        RESIZE[f"resize_{_inter}_{_scale}"] = (_inter, _scale)


def _size_d2(w, h):
    return max(1, w // 2), max(1, h // 2)


def _size_d17(w, h):
    # floor(x / 1.7 + 0.5), as ops_geometry.c
    return max(1, int(math.floor(w / 1.7 + 0.5))), max(1, int(math.floor(h / 1.7 + 0.5)))


def _size_u2(w, h):
    return 2 * w, 2 * h


SCALE_SIZE = {"d2": _size_d2, "d17": _size_d17, "u2": _size_u2}

OPS = {op: (_U8, None, None) for op in RESIZE}
OPS.update({
    "warp_affine_rot10": (_U8, None, None),
    "warp_perspective": (_U8, None, None),
    "remap_linear": (_U8, None, None),
    "flip_h": (_U8, None, None),
    "rotate90": (_U8, None, None),
})

DST_SIZE = {op: SCALE_SIZE[s] for op, (_, s) in RESIZE.items()}
DST_SIZE["rotate90"] = lambda w, h: (h, w)

_ELEM = {"u8c1": (1, 1), "u8c3": (1, 3), "u8c4": (1, 4), "u16c1": (2, 1), "f32c1": (4, 1),
         "f32c3": (4, 3)}


def _remap_bytes(fmt, w, h):
    size, ch = _ELEM[fmt]
    return 2 * w * h * ch * size + 2 * w * h * 4  # src, dst, two f32 maps


BYTES = {"remap_linear": _remap_bytes}


# ---- the transforms (ops_geometry.c's formulas) ----------------------------------------------


def rot10(w, h):
    """cv2.getRotationMatrix2D((w / 2, h / 2), 10, 1): the forward (src -> dst) 2x3 matrix."""
    cx, cy, a = w / 2, h / 2, 10 * 3.14159265358979323846 / 180
    alpha, beta = math.cos(a), math.sin(a)
    return [[alpha, beta, (1 - alpha) * cx - beta * cy],
            [-beta, alpha, beta * cx + (1 - alpha) * cy]]


def homography(w, h):
    """The warp_perspective row's forward (src -> dst) 3x3 matrix."""
    return [[1.0, 0.05, 0.0], [0.03, 1.0, 0.0], [0.1 / w, 0.05 / h, 1.0]]


def remap_maps(np, w, h):
    """map_x, map_y (float32, h x w): the barrel distortion of the remap_linear row."""
    cx, cy = (w - 1) / 2, (h - 1) / 2
    r2 = cx * cx + cy * cy
    s2 = 1 / r2 if r2 > 0 else 0.0
    dx = np.arange(w, dtype=np.float64)[None, :] - cx
    dy = np.arange(h, dtype=np.float64)[:, None] - cy
    f = 1 + 0.08 * ((dx * dx + dy * dy) * s2)
    return (cx + dx * f).astype(np.float32), (cy + dy * f).astype(np.float32)


def inverse3(np, m):
    """The inverse (dst -> src) of a forward 2x3 or 3x3 matrix, as a 3x3 float64 array."""
    a = np.eye(3)
    a[:len(m)] = np.asarray(m, dtype=np.float64)
    return np.linalg.inv(a)


def _wh(arr):
    return arr.shape[1], arr.shape[0]


# ---- OpenCV (CPU) ----------------------------------------------------------------------------


def opencv(peer, op, fmt, src, dst):
    cv2, np = peer.cv2, peer.np
    w, h = _wh(src)
    if op in RESIZE:
        inter, scale = RESIZE[op]
        flag = {"linear": cv2.INTER_LINEAR, "area": cv2.INTER_AREA, "cubic": cv2.INTER_CUBIC}[inter]
        dsize = _wh(dst)
        return (lambda i: cv2.resize(src, dsize, dst=dst, interpolation=flag)), (
            f"cv2.resize INTER_{inter.upper()} with dsize")
    if op == "warp_affine_rot10":
        m = np.array(rot10(w, h), dtype=np.float64)
        return (lambda i: cv2.warpAffine(src, m, (w, h), dst=dst, flags=cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_CONSTANT, borderValue=0)), (
            "cv2.warpAffine, forward matrix, linear, constant 0")
    if op == "warp_perspective":
        m = np.array(homography(w, h), dtype=np.float64)
        return (lambda i: cv2.warpPerspective(src, m, (w, h), dst=dst, flags=cv2.INTER_LINEAR,
                                              borderMode=cv2.BORDER_CONSTANT, borderValue=0)), (
            "cv2.warpPerspective, forward matrix, linear, constant 0")
    if op == "remap_linear":
        mx, my = remap_maps(np, w, h)
        return (lambda i: cv2.remap(src, mx, my, cv2.INTER_LINEAR, dst=dst,
                                    borderMode=cv2.BORDER_CONSTANT, borderValue=0)), (
            "cv2.remap with the same f32 maps, linear, constant 0")
    if op == "flip_h":
        return (lambda i: cv2.flip(src, 1, dst=dst)), "cv2.flip code 1"
    if op == "rotate90":
        return (lambda i: cv2.rotate(src, cv2.ROTATE_90_CLOCKWISE, dst=dst)), (
            "cv2.rotate ROTATE_90_CLOCKWISE")
    return None


# ---- CuPy (GPU) ------------------------------------------------------------------------------
# src and dst are lists of buffer sets, HWC (interleaved) cupy arrays.


def _out_u8_note(fmt):
    return "" if fmt.startswith("f32") else "; u8 output by CuPy's rounding"


def cupy(peer, op, fmt, src, dst):
    cp, ndi, np = peer.cp, peer.ndi, peer.np
    ch = src[0].ndim == 3 and src[0].shape[2] or 1
    w, h = _wh(src[0])
    if op in RESIZE:
        inter, _ = RESIZE[op]
        if inter == "area":
            return None  # no area resampling in cupyx.scipy.ndimage
        order = 1 if inter == "linear" else 3
        dw, dh = _wh(dst[0])
        zoom = (dh / h, dw / w) if ch == 1 else (dh / h, dw / w, 1.0)

        def run(i):
            ndi.zoom(src[i], zoom, output=dst[i], order=order, mode="nearest", grid_mode=True,
                     prefilter=order > 1)

        kind = ("linear (order 1)" if order == 1 else
                "cubic B-spline (order 3, with CuPy's float64 spline prefilter in the run: not "
                "OpenCV's Keys cubic a = -0.75)")
        return run, (f"cupyx.scipy.ndimage.zoom {kind}, grid_mode=True (pixel-area convention, "
                     f"as OpenCV), mode nearest (edge replicate)" + _out_u8_note(fmt))
    if op == "warp_affine_rot10":
        inv = inverse3(np, rot10(w, h))  # dst (x, y) -> src (x, y)
        # ndimage's coordinates are (row, col[, channel]): swap x and y, leave channels alone.
        a = [[inv[1, 1], inv[1, 0]], [inv[0, 1], inv[0, 0]]]
        off = [inv[1, 2], inv[0, 2]]
        if ch > 1:
            a = [a[0] + [0.0], a[1] + [0.0], [0.0, 0.0, 1.0]]
            off = off + [0.0]
        mat = cp.asarray(a, dtype=cp.float64)
        offset = tuple(off)

        def run(i):
            ndi.affine_transform(src[i], mat, offset=offset, output=dst[i], order=1,
                                 mode="grid-constant", cval=0.0)

        return run, ("cupyx.scipy.ndimage.affine_transform with the inverse matrix (rows and "
                     "columns swapped, channels kept), order 1, mode grid-constant 0 (= OpenCV's "
                     "constant border)" + _out_u8_note(fmt))
    if op in ("warp_perspective", "remap_linear"):
        dw, dh = _wh(dst[0])
        if op == "remap_linear":
            mx, my = remap_maps(np, w, h)
            # map_coordinates wants (row, col[, channel]) coordinates of every output element:
            # made from the maps before timing (as cv2.convertMaps would be), one set per buffer
            # set so that the coordinates rotate with the images.
            ys = cp.asarray(my)
            xs = cp.asarray(mx)
            if ch > 1:
                ys = cp.broadcast_to(ys[:, :, None], (dh, dw, ch))
                xs = cp.broadcast_to(xs[:, :, None], (dh, dw, ch))
                cs = cp.broadcast_to(cp.arange(ch, dtype=cp.float32), (dh, dw, ch))
                coords = [cp.stack([ys, xs, cs]) for _ in src]
            else:
                coords = [cp.stack([ys, xs]) for _ in src]

            def run(i):
                ndi.map_coordinates(src[i], coords[i], output=dst[i], order=1, mode="grid-constant",
                                    cval=0.0)

            return run, ("cupyx.scipy.ndimage.map_coordinates order 1, grid-constant 0, on float32 "
                         "(row, col" + (", channel" if ch > 1 else "") +
                         ") coordinates made from the maps before timing" + _out_u8_note(fmt))
        # warp_perspective: the coordinates are computed from the homography inside the run
        # (what a CuPy user pays: ndimage has no perspective warp), then map_coordinates.
        inv = cp.asarray(inverse3(np, homography(w, h)), dtype=cp.float32)
        gx = cp.arange(dw, dtype=cp.float32)[None, :]
        gy = cp.arange(dh, dtype=cp.float32)[:, None]
        cs = cp.arange(ch, dtype=cp.float32) if ch > 1 else None

        def run(i):
            z = inv[2, 0] * gx + inv[2, 1] * gy + inv[2, 2]
            xs = (inv[0, 0] * gx + inv[0, 1] * gy + inv[0, 2]) / z
            ys = (inv[1, 0] * gx + inv[1, 1] * gy + inv[1, 2]) / z
            if cs is None:
                coords = cp.stack([ys, xs])
            else:
                shape = (dh, dw, ch)
                coords = cp.stack([cp.broadcast_to(ys[:, :, None], shape),
                                   cp.broadcast_to(xs[:, :, None], shape),
                                   cp.broadcast_to(cs, shape)])
            ndi.map_coordinates(src[i], coords, output=dst[i], order=1, mode="grid-constant",
                                cval=0.0)

        return run, ("float32 coordinates from the inverse homography computed in the run, then "
                     "cupyx.scipy.ndimage.map_coordinates order 1, grid-constant 0"
                     + _out_u8_note(fmt))
    if op == "flip_h":
        return (lambda i: cp.copyto(dst[i], src[i][:, ::-1])), (
            "cupy.copyto of the reversed view src[:, ::-1]")
    if op == "rotate90":
        return (lambda i: cp.copyto(dst[i], cp.rot90(src[i], -1, axes=(0, 1)))), (
            "cupy.copyto of the view cupy.rot90(src, -1)")
    return None


# ---- PyTorch (GPU) ---------------------------------------------------------------------------
# src and dst are lists of planar NCHW tensors (1, C, H, W).


def _pix_to_norm(np, w, h):
    """Pixel coordinates -> grid_sample's normalised ones (align_corners=False)."""
    return np.array([[2 / w, 0, 1 / w - 1], [0, 2 / h, 1 / h - 1], [0, 0, 1]], dtype=np.float64)


CONV = " (u8 -> f32 -> op -> round, clamp -> u8 inside the timed run: torch resamples floats)"


def torch(peer, op, fmt, src, dst):
    tt, F, np = peer.torch, peer.F, peer.np
    u8 = fmt.startswith("u8")
    _, ch, h, w = src[0].shape
    dh, dw = dst[0].shape[2], dst[0].shape[3]
    conv = CONV if u8 else ""

    def fl(x):
        return x.float() if u8 else x

    def out(y, o):
        o.copy_(y.round_().clamp_(0, 255)) if u8 else o.copy_(y)

    if op in RESIZE:
        inter, scale = RESIZE[op]
        if inter == "area":
            if scale != "d2":
                return None  # adaptive average pooling is OpenCV's area only for integer factors
            mode, extra = "area", ("mode area (adaptive_avg_pool2d): OpenCV's INTER_AREA only for "
                                   "integer factors such as this 2")
        else:
            mode = "bilinear" if inter == "linear" else "bicubic"
            extra = (f"mode {mode}" + (" (Keys a = -0.75, as OpenCV)" if mode == "bicubic" else "")
                     + ", align_corners=False, antialias=False")

        def run(i):
            if mode == "area":
                y = F.interpolate(fl(src[i]), size=(dh, dw), mode="area")
            else:
                y = F.interpolate(fl(src[i]), size=(dh, dw), mode=mode, align_corners=False,
                                  antialias=False)
            out(y, dst[i])

        return run, "torch.nn.functional.interpolate " + extra + conv
    if op == "warp_affine_rot10":
        # theta maps dst's normalised coordinates to src's: N_src inv(M) inv(N_dst).
        inv = inverse3(np, rot10(w, h))
        theta = _pix_to_norm(np, w, h) @ inv @ np.linalg.inv(_pix_to_norm(np, dw, dh))
        th = tt.tensor(theta[:2][None], dtype=tt.float32, device=src[0].device)

        def run(i):
            grid = F.affine_grid(th, [1, ch, dh, dw], align_corners=False)
            y = F.grid_sample(fl(src[i]), grid, mode="bilinear", padding_mode="zeros",
                              align_corners=False)
            out(y, dst[i])

        return run, ("affine_grid (in the run) + grid_sample bilinear, zeros padding, "
                     "align_corners=False" + conv)
    if op == "warp_perspective":
        inv = inverse3(np, homography(w, h))
        theta = _pix_to_norm(np, w, h) @ inv @ np.linalg.inv(_pix_to_norm(np, dw, dh))
        th = tt.tensor(theta.T, dtype=tt.float32, device=src[0].device)
        # The normalised homogeneous coordinates of dst's pixel centres, made once (a constant).
        xs = (2 * tt.arange(dw, dtype=tt.float32, device=src[0].device) + 1) / dw - 1
        ys = (2 * tt.arange(dh, dtype=tt.float32, device=src[0].device) + 1) / dh - 1
        base = tt.stack([xs[None, :].expand(dh, dw), ys[:, None].expand(dh, dw),
                         tt.ones(dh, dw, device=src[0].device)], dim=-1)

        def run(i):
            p = base @ th
            grid = (p[..., :2] / p[..., 2:]).unsqueeze(0)
            y = F.grid_sample(fl(src[i]), grid, mode="bilinear", padding_mode="zeros",
                              align_corners=False)
            out(y, dst[i])

        return run, ("grid from the homography in the run (matmul, divide) + grid_sample "
                     "bilinear, zeros padding, align_corners=False" + conv)
    if op == "remap_linear":
        mx, my = remap_maps(np, w, h)
        # The maps as grid_sample's normalised grid, made before timing (as cv2.convertMaps).
        g = np.stack([(2 * mx.astype(np.float64) + 1) / w - 1,
                      (2 * my.astype(np.float64) + 1) / h - 1], axis=-1)
        grids = [tt.tensor(g[None], dtype=tt.float32, device=src[0].device) for _ in src]

        def run(i):
            y = F.grid_sample(fl(src[i]), grids[i], mode="bilinear", padding_mode="zeros",
                              align_corners=False)
            out(y, dst[i])

        return run, ("grid_sample bilinear, zeros padding, align_corners=False, on the maps as a "
                     "normalised f32 grid made before timing" + conv)
    if op == "flip_h":
        return (lambda i: tt.flip(src[i], [3])), (
            "torch.flip(dims=[3]) into a new tensor (torch.flip has no out=)")
    if op == "rotate90":
        return (lambda i: dst[i].copy_(tt.rot90(src[i], -1, [2, 3]))), (
            "torch.rot90(k=-1) (a flipped copy, then a strided view) copied into dst: two passes")
    return None
