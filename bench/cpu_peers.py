"""Times gip's CPU operations against OpenCV's on the same images in the same run: every
operation of the registry that has a cv2 counterpart, at 3840x2160, u8 with 1 and 3 channels and
f32 with 1 (where both accept them). Prints one row an operation and case: gip and cv2 in
milliseconds (the fastest and the median of N runs) and the ratio of the medians (under 1: gip is
faster). The outputs are compared too (max abs difference), so a fast wrong answer shows.

Usage: PYTHONPATH=<dir holding the gip package> python3 bench/cpu_peers.py [-n N] [-k SUBSTR]
[--json FILE]. cv2 runs with its default threads and IPP as shipped; gip with its own pool."""
import argparse
import json
import time

import cv2
import numpy as np

import gip

H, W = 2160, 3840


def timed(fn, n):
    fn()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    ts.sort()
    return ts[0] * 1e3, ts[len(ts) // 2] * 1e3


def cases():
    """(name, case, gip callable, cv2 callable) for each row."""
    rng = np.random.default_rng(0)
    img = {
        "u8c1": rng.integers(0, 256, (H, W), dtype=np.uint8),
        "u8c3": rng.integers(0, 256, (H, W, 3), dtype=np.uint8),
        "f32c1": rng.random((H, W), dtype=np.float32),
        "nv12": rng.integers(0, 256, (H * 3 // 2, W), dtype=np.uint8),
        "f32c3": rng.random((H, W, 3), dtype=np.float32),
        "u16c3": rng.integers(0, 65536, (H, W, 3), dtype=np.uint16),
        "u8c4": rng.integers(0, 256, (H, W, 4), dtype=np.uint8),
    }
    img2 = {k: np.ascontiguousarray(v[::-1]) for k, v in img.items()}
    M = cv2.getRotationMatrix2D((W / 2, H / 2), 17, 0.9)
    P = np.array([[1, 0.05, 3], [0.02, 1, 5], [1e-5, 2e-5, 1]])
    ker = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
    ell = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
    lut = np.arange(256, dtype=np.uint8)[::-1].copy()
    rows = []

    def add(name, kinds, f):
        """f(module, case) runs the operation with module gip or cv2 (the same names)."""
        for k in kinds:
            rows.append((name, k, (lambda f=f, k=k: f(gip, k)), (lambda f=f, k=k: f(cv2, k))))

    ALL, U8, C1 = ("u8c1", "u8c3", "f32c1"), ("u8c1", "u8c3"), ("u8c1", "f32c1")
    inters = (("nearest", cv2.INTER_NEAREST), ("linear", cv2.INTER_LINEAR),
              ("cubic", cv2.INTER_CUBIC), ("area", cv2.INTER_AREA),
              ("lanczos4", cv2.INTER_LANCZOS4), ("linear_exact", cv2.INTER_LINEAR_EXACT),
              ("nearest_exact", cv2.INTER_NEAREST_EXACT))
    sizes = (("down 2", (W // 2, H // 2)), ("down 1.7", (round(W / 1.7), round(H / 1.7))),
             ("up 2", (W * 2, H * 2)))
    for iname, inter in inters:
        for sname, size in sizes:
            add("resize %s %s" % (iname, sname), ALL,
                lambda m, k, s=size, i=inter: m.resize(img[k], s, interpolation=i))
    warps = (("nearest", cv2.INTER_NEAREST), ("linear", cv2.INTER_LINEAR),
             ("cubic", cv2.INTER_CUBIC), ("lanczos4", cv2.INTER_LANCZOS4))
    for iname, inter in warps:
        add("warpAffine %s" % iname, ALL,
            lambda m, k, i=inter: m.warpAffine(img[k], M, (W, H), flags=i))
        add("warpPerspective %s" % iname, ALL,
            lambda m, k, i=inter: m.warpPerspective(img[k], P, (W, H), flags=i))
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    mx = (xx + 7.3 * np.sin(yy / 53)).astype(np.float32)
    my = (yy + 5.1 * np.cos(xx / 71)).astype(np.float32)
    for iname, inter in warps:
        add("remap %s" % iname, ALL,
            lambda m, k, i=inter: m.remap(img[k], mx, my, i))
    add("rotate 90", ALL, lambda m, k: m.rotate(img[k], m.ROTATE_90_CLOCKWISE))
    add("rotate 180", ALL, lambda m, k: m.rotate(img[k], m.ROTATE_180))
    add("rotate 270", ALL, lambda m, k: m.rotate(img[k], m.ROTATE_90_COUNTERCLOCKWISE))
    add("flip both", ALL, lambda m, k: m.flip(img[k], -1))
    add("flip x", ALL, lambda m, k: m.flip(img[k], 0))
    add("flip y", ALL, lambda m, k: m.flip(img[k], 1))
    add("transpose", ALL, lambda m, k: m.transpose(img[k]))
    for bname in ("CONSTANT", "REPLICATE", "REFLECT", "WRAP", "REFLECT_101"):
        add("copyMakeBorder %s 16" % bname.lower(), ALL,
            lambda m, k, b=bname: m.copyMakeBorder(img[k], 16, 16, 16, 16,
                                                   getattr(m, "BORDER_" + b)))
    add("pyrDown", ALL, lambda m, k: m.pyrDown(img[k]))
    add("pyrUp", ALL, lambda m, k: m.pyrUp(img[k]))
    add("cvtColor BGR2GRAY", ("u8c3",), lambda m, k: m.cvtColor(img[k], m.COLOR_BGR2GRAY))
    add("cvtColor BGR2HSV", ("u8c3", "f32c3"), lambda m, k: m.cvtColor(img[k], m.COLOR_BGR2HSV))
    add("cvtColor BGR2YCrCb", ("u8c3",), lambda m, k: m.cvtColor(img[k], m.COLOR_BGR2YCrCb))
    add("cvtColor BGR2Lab", ("u8c3",), lambda m, k: m.cvtColor(img[k], m.COLOR_BGR2Lab))
    add("cvtColor HSV2BGR", ("u8c3", "f32c3"), lambda m, k: m.cvtColor(img[k], m.COLOR_HSV2BGR))
    add("cvtColor BGR2HLS", ("u8c3", "f32c3"), lambda m, k: m.cvtColor(img[k], m.COLOR_BGR2HLS))
    add("cvtColor HLS2BGR", ("u8c3", "f32c3"), lambda m, k: m.cvtColor(img[k], m.COLOR_HLS2BGR))
    add("cvtColor YCrCb2BGR", ("u8c3", "u16c3"),
        lambda m, k: m.cvtColor(img[k], m.COLOR_YCrCb2BGR))
    add("cvtColor BGR2YCrCb u16", ("u16c3",), lambda m, k: m.cvtColor(img[k], m.COLOR_BGR2YCrCb))
    add("cvtColor YUV2BGR", ("u8c3",), lambda m, k: m.cvtColor(img[k], m.COLOR_YUV2BGR))
    add("cvtColor BGRA to HSV", ("u8c4",), lambda m, k: m.cvtColor(img[k], m.COLOR_BGR2HSV))
    add("cvtColor BayerBG2BGR_VNG", ("u8c1",),
        lambda m, k: m.cvtColor(img[k], m.COLOR_BayerBG2BGR_VNG))
    add("cvtColor BGR2YUV_I420", ("u8c3",), lambda m, k: m.cvtColor(img[k], m.COLOR_BGR2YUV_I420))
    add("cvtColor BGR2YUV_YUY2", ("u8c3",), lambda m, k: m.cvtColor(img[k], m.COLOR_BGR2YUV_YUY2))
    add("cvtColor YUV2BGR_NV12", ("nv12",),
        lambda m, k: m.cvtColor(img[k], m.COLOR_YUV2BGR_NV12))
    add("cvtColor YUV2BGR_I420", ("nv12",),
        lambda m, k: m.cvtColor(img[k], m.COLOR_YUV2BGR_I420))
    add("cvtColor BayerBG2BGR", ("u8c1",), lambda m, k: m.cvtColor(img[k], m.COLOR_BayerBG2BGR))
    add("threshold binary", ALL, lambda m, k: m.threshold(img[k], 0.5 if k == "f32c1" else 127,
                                                          1, m.THRESH_BINARY)[1])
    add("threshold otsu", ("u8c1",),
        lambda m, k: m.threshold(img[k], 0, 255, m.THRESH_BINARY + m.THRESH_OTSU)[1])
    add("adaptiveThreshold mean 11", ("u8c1",),
        lambda m, k: m.adaptiveThreshold(img[k], 255, m.ADAPTIVE_THRESH_MEAN_C,
                                         m.THRESH_BINARY, 11, 2))
    add("inRange", ("u8c3",), lambda m, k: m.inRange(img[k], (10, 20, 30), (200, 210, 220)))
    add("add", ALL, lambda m, k: m.add(img[k], img2[k]))
    add("absdiff", ALL, lambda m, k: m.absdiff(img[k], img2[k]))
    add("addWeighted", ALL, lambda m, k: m.addWeighted(img[k], 0.3, img2[k], 0.7, 5))
    add("multiply", U8, lambda m, k: m.multiply(img[k], img2[k], scale=1 / 255))
    add("bitwise_not", U8, lambda m, k: m.bitwise_not(img[k]))
    add("bitwise_and", U8, lambda m, k: m.bitwise_and(img[k], img2[k]))
    add("convertScaleAbs", ALL, lambda m, k: m.convertScaleAbs(img[k], alpha=1.5, beta=3))
    add("LUT", U8, lambda m, k: m.LUT(img[k], lut))
    add("normalize minmax", C1, lambda m, k: m.normalize(img[k], None, 0, 255, m.NORM_MINMAX))
    add("erode 3x3", ALL, lambda m, k: m.erode(img[k], ker))
    add("dilate ellipse 7x7", ALL, lambda m, k: m.dilate(img[k], ell))
    add("morphologyEx open 3x3", ("u8c1",),
        lambda m, k: m.morphologyEx(img[k], m.MORPH_OPEN, ker))
    add("medianBlur 3", ALL, lambda m, k: m.medianBlur(img[k], 3))
    add("medianBlur 5", ALL, lambda m, k: m.medianBlur(img[k], 5))
    add("medianBlur 9", ("u8c1",), lambda m, k: m.medianBlur(img[k], 9))
    add("bilateralFilter d=9", ("u8c1", "u8c3"),
        lambda m, k: m.bilateralFilter(img[k], 9, 75, 75))
    add("Laplacian 3", ("u8c1",), lambda m, k: m.Laplacian(img[k], m.CV_16S, ksize=3))
    add("Scharr dx", ("u8c1",), lambda m, k: m.Scharr(img[k], m.CV_16S, 1, 0))
    add("Canny 100 200", ("u8c1",), lambda m, k: m.Canny(img[k], 100, 200))
    add("equalizeHist", ("u8c1",), lambda m, k: m.equalizeHist(img[k]))
    add("CLAHE 2.0 8x8", ("u8c1",),
        lambda m, k: m.createCLAHE(2.0, (8, 8)).apply(img[k]))
    add("GaussianBlur 15x15", ALL, lambda m, k: m.GaussianBlur(img[k], (15, 15), 0))
    add("blur 3x3", ALL, lambda m, k: m.blur(img[k], (3, 3)))
    add("Sobel dx 3", ("u8c1",), lambda m, k: m.Sobel(img[k], m.CV_16S, 1, 0))
    add("minMaxLoc", C1, lambda m, k: m.minMaxLoc(img[k]))
    add("meanStdDev", ALL, lambda m, k: m.meanStdDev(img[k]))
    add("calcHist 256", ("u8c1",),
        lambda m, k: m.calcHist([img[k]], [0], None, [256], [0, 256]))
    return rows


def flat(v):
    """An output as one float64 vector: arrays, numbers and (nested) tuples of them."""
    if isinstance(v, (tuple, list)):
        parts = [flat(x) for x in v]
        return np.concatenate(parts) if parts else np.zeros(0)
    return np.asarray(v, dtype=np.float64).ravel()


def diff(a, b):
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape != b.shape:
        return "shape %s vs %s" % (a.shape, b.shape)
    a, b = flat(a), flat(b)
    if a.shape != b.shape:
        return "size %d vs %d" % (a.size, b.size)
    return float(np.max(np.abs(a - b))) if a.size else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=9)
    ap.add_argument("-k", default="")
    ap.add_argument("--json")
    a = ap.parse_args()
    rows = cases()
    out = []
    print("%-30s %-6s %17s %17s %6s  %s" % ("operation", "case", "gip min/med ms",
                                             "cv2 min/med ms", "ratio", "max |gip-cv2|"))
    for name, kind, g, c in rows:
        if a.k and a.k not in name:
            continue
        try:
            gm, gmed = timed(g, a.n)
            cm, cmed = timed(c, a.n)
            d = diff(g(), c())
        except Exception as e:  # an operation or case one side lacks: say so, go on
            print("%-30s %-6s %s" % (name, kind, "skipped: %s" % e))
            continue
        print("%-30s %-6s %8.2f %8.2f %8.2f %8.2f %6.2f  %s" % (name, kind, gm, gmed, cm, cmed,
                                                                gmed / cmed, d), flush=True)
        out.append(dict(op=name, case=kind, gip_min=gm, gip_med=gmed, cv2_min=cm, cv2_med=cmed,
                        max_abs_diff=d))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(machine=" ".join(open("/proc/cpuinfo").read().split("model name")[1]
                                                 .split("\n")[0].split(":")[1:]).strip(),
                           cores=__import__("os").cpu_count(), size=[W, H], rows=out), f, indent=1)


if __name__ == "__main__":
    main()
