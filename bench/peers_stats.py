# SPDX-License-Identifier: MIT
"""The stats rows of bench/peers.py (see FAMILIES there): issue 42's histograms, equalisation,
CLAHE, reductions, integral image, template matching and connected components, the same rows as
bench/ops_stats.c. The minmax_loc sources, the match templates and the ccl text scan follow the
rules of ops_stats.c exactly (the same values pixel for pixel).

gip's reductions (hist256, minmax_loc, meanstd) return host values and synchronise; the GPU peers
here copy their results to the host at the end of each run for the same reason. Their destination
arrays (DST_SIZE) are unused placeholders: the bytes of these rows are the source's alone."""

_SIZE = {"u8c1": (1, 1), "u8c3": (1, 3), "u8c4": (1, 4), "u16c1": (2, 1), "f32c1": (4, 1),
         "f32c3": (4, 3)}

OPS = {
    "hist256": (["u8c1", "u8c3"], "float32", 1),
    "equalize_hist": (["u8c1"], None, None),
    "clahe8": (["u8c1"], None, None),
    "minmax_loc": (["u8c1", "f32c1"], "float32", 1),
    "meanstd": (["u8c1", "u8c3", "f32c1"], "float32", 1),
    "integral": (["u8c1"], "int32", 1),
    "match32": (["u8c1"], "float32", 1),
    "match256": (["u8c1"], "float32", 1),
    "ccl": (["u8c1"], "int32", 1),
}

MATCH = {"match32": 32, "match256": 256}
REDUCTIONS = ("hist256", "minmax_loc", "meanstd")


def templ_side(t, w, h):
    """The template's side: the row's, or the image's smaller side when that is less."""
    return min(t, w, h)


def _match_size(t):
    def size(w, h):
        s = templ_side(t, w, h)
        return w - s + 1, h - s + 1

    return size


DST_SIZE = {
    "hist256": lambda w, h: (256, 4),
    "minmax_loc": lambda w, h: (16, 1),
    "meanstd": lambda w, h: (16, 1),
    "integral": lambda w, h: (w + 1, h + 1),
    "match32": _match_size(32),
    "match256": _match_size(256),
}


def _source_bytes(fmt, w, h):
    size, ch = _SIZE[fmt]
    return w * h * ch * size


def _match_bytes(t):
    def count(fmt, w, h):
        size, ch = _SIZE[fmt]
        s = templ_side(t, w, h)
        dw, dh = w - s + 1, h - s + 1
        return (w * h + s * s) * ch * size + dw * dh * 4  # source, template, f32 result

    return count


BYTES = {op: _source_bytes for op in REDUCTIONS}
BYTES.update({op: _match_bytes(t) for op, t in MATCH.items()})

SYNC = "; results copied to the host (synchronises, as gip's)"


# ---- the inputs (ops_stats.c's rules) ----------------------------------------------------------


def minmax_source(src):
    """Integer sources mapped to 1 .. max - 1 (v % (max - 1) + 1), as ops_stats.c: no early stop
    at the dtype's limits. A new array (the cached host image stays as it is); f32 unchanged."""
    if src.dtype.kind != "u":
        return src
    top = 254 if src.itemsize == 1 else 65534
    return src % top + 1


def templ_window(t, w, h):
    """(x0, y0, side) of the template cut from the source's centre."""
    s = templ_side(t, w, h)
    return (w - s) // 2, (h - s) // 2, s


SCAN_CW, SCAN_CH = 12, 20


def _mix32(np, x):
    x = x ^ (x >> np.uint32(16))
    x = x * np.uint32(0x7FEB352D)
    x = x ^ (x >> np.uint32(15))
    x = x * np.uint32(0x846CA68B)
    return x ^ (x >> np.uint32(16))


def text_scan(np, w, h):
    """The ccl rows' synthetic binary text scan (h x w u8, 0 / 255), pixel for pixel ops_stats.c's
    scan_pixel: a margin, lines of 12 x 20 character cells, glyphs of strokes chosen by a hash of
    (line, column), spaces, ragged line ends, blank lines, specks of one pixel in 2048."""
    u32 = np.uint32
    m = min(min(w, h) // 16, 32)
    out = np.zeros((h, w), dtype=np.uint8)
    iw, ih = w - 2 * m, h - 2 * m
    if iw <= 0 or ih <= 0:
        return out
    with np.errstate(over="ignore"):
        xx = np.arange(iw, dtype=u32)[None, :]
        yy = np.arange(ih, dtype=u32)[:, None]
        line, ry = yy // u32(SCAN_CH), yy % u32(SCAN_CH)
        col, rx = xx // u32(SCAN_CW), xx % u32(SCAN_CW)
        ncols = iw // SCAN_CW
        # Per line: blank (paragraph break) or ragged end; per cell: space or glyph strokes.
        lines = np.arange(int(line[-1, 0]) + 1, dtype=u32)
        hl = _mix32(np, lines ^ u32(0xA5A5A5A5))
        blank = hl % u32(9) == 0
        end = ncols - (hl >> u32(8)) % u32(ncols // 3 + 1)
        cols = np.arange(int(col[0, -1]) + 1, dtype=u32)
        hc = _mix32(np, (lines[:, None] << u32(16)) ^ cols[None, :] ^ u32(0x3C6EF372))
        live = (~blank[:, None]) & (cols[None, :] < end[:, None]) & ((hc & u32(7)) != 0)
        b = np.where(live, hc >> u32(3), u32(0))[line, col]  # per pixel; 0: no ink
        live = live[line, col]

        def within(v, lo, hi):
            return (v >= lo) & (v < hi)

        stem = within(ry, 5, 17)
        ink = live & ((b & u32(31)) == 0) & within(rx, 5, 7) & stem  # a lone stem
        ink |= ((b & u32(1)) != 0) & within(rx, 2, 4) & stem
        ink |= ((b & u32(2)) != 0) & within(rx, 8, 10) & stem
        ink |= ((b & u32(4)) != 0) & within(ry, 5, 7) & within(rx, 2, 10)
        ink |= ((b & u32(8)) != 0) & within(ry, 10, 12) & within(rx, 2, 10)
        ink |= ((b & u32(16)) != 0) & within(ry, 15, 17) & within(rx, 2, 10)
        ink |= ((b & u32(96)) == 96) & within(rx, 5, 7) & within(ry, 1, 3)
        ink |= ((b & u32(896)) == 896) & within(rx, 8, 10) & within(ry, 17, 20)
        ink |= (_mix32(np, yy * u32(0x9E3779B1) + xx) & u32(2047)) == 0  # specks
    out[m:m + ih, m:m + iw] = np.where(ink, np.uint8(255), np.uint8(0))
    return out


_scan_cache = {}


def scan_image(np, w, h):
    if (w, h) not in _scan_cache:
        _scan_cache.clear()
        _scan_cache[(w, h)] = text_scan(np, w, h)
    return _scan_cache[(w, h)]


def _minmax_note(fmt):
    return "; the same 1..254 source as gip's row" if fmt.startswith("u8") else ""


def _channels(fmt):
    return _SIZE[fmt][1]


# ---- OpenCV (CPU) ----------------------------------------------------------------------------


def opencv(peer, op, fmt, src, dst):
    cv2, np = peer.cv2, peer.np
    h, w = src.shape[:2]
    ch = _channels(fmt)
    if op not in OPS or fmt not in OPS[op][0]:
        return None
    if op == "hist256":
        hists = [np.zeros((256, 1), np.float32) for _ in range(ch)]

        def run(i):
            for c in range(ch):
                cv2.calcHist([src], [c], None, [256], [0, 256], hist=hists[c])

        return run, "cv2.calcHist 256 bins [0, 256), one call per channel"
    if op == "equalize_hist":
        return (lambda i: cv2.equalizeHist(src, dst=dst)), "cv2.equalizeHist"
    if op == "clahe8":
        clahe = cv2.createCLAHE(40.0, (8, 8))
        return (lambda i: clahe.apply(src, dst=dst)), "cv2.createCLAHE(40, (8, 8)).apply"
    if op == "minmax_loc":
        s = minmax_source(src)
        return (lambda i: cv2.minMaxLoc(s)), "cv2.minMaxLoc" + _minmax_note(fmt)
    if op == "meanstd":
        return (lambda i: cv2.meanStdDev(src)), "cv2.meanStdDev"
    if op == "integral":
        return (lambda i: cv2.integral(src, sum=dst, sdepth=cv2.CV_32S)), (
            "cv2.integral sdepth CV_32S")
    if op in MATCH:
        x0, y0, s = templ_window(MATCH[op], w, h)
        templ = np.ascontiguousarray(src[y0:y0 + s, x0:x0 + s])
        return (lambda i: cv2.matchTemplate(src, templ, cv2.TM_CCOEFF_NORMED, result=dst)), (
            "cv2.matchTemplate TM_CCOEFF_NORMED, the same centre template")
    if op == "ccl":
        scan = scan_image(np, w, h)
        return (lambda i: cv2.connectedComponents(scan, labels=dst, connectivity=8,
                                                  ltype=cv2.CV_32S)), (
            "cv2.connectedComponents connectivity 8, CV_32S, the same text scan")
    return None


# ---- CuPy (GPU) ------------------------------------------------------------------------------
# src and dst are lists of buffer sets, HWC (interleaved) cupy arrays.


def cupy(peer, op, fmt, src, dst):
    cp, ndi, np = peer.cp, peer.ndi, peer.np
    if op not in OPS or fmt not in OPS[op][0]:
        return None
    h, w = src[0].shape[:2]
    ch = _channels(fmt)
    if op == "hist256":
        def run(i):
            x = src[i]
            hs = [cp.histogram(x if ch == 1 else x[:, :, c], bins=256, range=(0, 256))[0]
                  for c in range(ch)]
            return cp.stack(hs).get()

        copy = "; ravel copies each strided channel view" if ch > 1 else ""
        return run, ("cupy.histogram 256 bins [0, 256) of each channel (one call per channel, "
                     "int64 counts" + copy + ")" + SYNC)
    if op == "minmax_loc":
        for i, s in enumerate(src):
            src[i] = minmax_source(s)

        def run(i):
            x = src[i].ravel()
            v = cp.stack([x.min().astype(cp.float64), x.max().astype(cp.float64),
                          x.argmin().astype(cp.float64), x.argmax().astype(cp.float64)]).get()
            return v[0], v[1], divmod(int(v[2]), w), divmod(int(v[3]), w)

        return run, "cupy min, max, argmin, argmax (four reductions)" + _minmax_note(fmt) + SYNC
    if op == "meanstd":
        axis = None if ch == 1 else (0, 1)

        def run(i):
            x = src[i]
            return cp.stack([x.mean(axis=axis), x.std(axis=axis)]).get()

        return run, "cupy mean and std (population), cupy's accumulation types" + SYNC
    if op == "integral":
        def run(i):
            dst[i][1:, 1:] = cp.cumsum(cp.cumsum(src[i], axis=0, dtype=cp.int32), axis=1)

        return run, ("cupy.cumsum down the columns, then along the rows (int32), copied into "
                     "the (H+1) x (W+1) result (row and column 0 zero)")
    if op == "ccl":
        scan = scan_image(np, w, h)
        for i in range(len(src)):
            src[i] = cp.asarray(scan)
        structure = np.ones((3, 3), dtype=bool)  # 8-connectivity

        def run(i):
            return ndi.label(src[i], structure=structure, output=dst[i])

        return run, ("cupyx.scipy.ndimage.label, 3x3 structure of ones (8-connectivity), the "
                     "same text scan; labels numbered in row order of first pixels (scipy's, not "
                     "OpenCV's 2x2-block order); the count comes to the host (synchronises)")
    return None


# ---- PyTorch (GPU) ---------------------------------------------------------------------------
# src and dst are lists of planar NCHW tensors (1, C, H, W).


def torch(peer, op, fmt, src, dst):
    tt = peer.torch
    if op not in OPS or fmt not in OPS[op][0]:
        return None
    _, ch, h, w = src[0].shape
    u8 = fmt.startswith("u8")
    conv = " (u8 -> f32 inside the timed run)" if u8 else ""
    if op == "hist256":
        def run(i):
            x = src[i][0]
            hs = [tt.histc(x[c].float(), bins=256, min=0, max=256) for c in range(ch)]
            return tt.stack(hs).cpu()

        return run, ("torch.histc 256 bins [0, 256) of each channel (one call per channel, "
                     "f32 counts)" + conv + SYNC)
    if op == "minmax_loc":
        for s in src:
            if u8:
                s.copy_(s % 254 + 1)  # ops_stats.c's 1..254 source

        def run(i):
            x = src[i].reshape(-1)
            mn, mx = tt.aminmax(x)
            v = tt.stack([mn.double(), mx.double(), x.argmin().double(),
                          x.argmax().double()]).cpu()
            return v[0].item(), v[1].item(), divmod(int(v[2]), w), divmod(int(v[3]), w)

        return run, "torch.aminmax + argmin + argmax (three reductions)" + _minmax_note(fmt) + SYNC
    if op == "meanstd":
        def run(i):
            x = src[i].float() if u8 else src[i]
            sd, mean = tt.std_mean(x, dim=(0, 2, 3), correction=0)
            return tt.stack([mean, sd]).cpu()

        return run, "torch.std_mean per channel (population), float32 arithmetic" + conv + SYNC
    if op == "integral":
        def run(i):
            s = tt.cumsum(tt.cumsum(src[i][0, 0], 0, dtype=tt.int32), 1)
            dst[i][0, 0, 1:, 1:].copy_(s)

        return run, ("torch.cumsum down the columns, then along the rows (int32), copied into "
                     "the (H+1) x (W+1) result (row and column 0 zero)")
    return None
