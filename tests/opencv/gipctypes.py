# SPDX-License-Identifier: MIT
"""Minimal ctypes binding of libgip's host filter entries, for the OpenCV comparison scripts
(until the Python package exists). Finds the library through GIP_LIB or build*/libgip.so."""
import ctypes, glob, os
import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))


class Image(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("width", ctypes.c_int64), ("height", ctypes.c_int64),
                ("channels", ctypes.c_int32), ("dtype", ctypes.c_int), ("stride", ctypes.c_int64),
                ("memory", ctypes.c_int), ("device", ctypes.c_int32)]


class Border(ctypes.Structure):
    _fields_ = [("mode", ctypes.c_int), ("value", ctypes.c_float * 4)]


class GaussianParams(ctypes.Structure):
    _fields_ = [("ksize_w", ctypes.c_int32), ("ksize_h", ctypes.c_int32),
                ("sigma_x", ctypes.c_double), ("sigma_y", ctypes.c_double), ("border", Border)]


class BoxParams(ctypes.Structure):
    _fields_ = [("ksize_w", ctypes.c_int32), ("ksize_h", ctypes.c_int32),
                ("has_anchor", ctypes.c_int32), ("anchor_x", ctypes.c_int32),
                ("anchor_y", ctypes.c_int32), ("unnormalized", ctypes.c_int32), ("border", Border)]


# cv2 border constant -> gip_border
CV2_TO_GIP = {4: 0, 2: 1, 1: 2, 0: 3, 3: 4}
_DT = {np.dtype(np.uint8): 1, np.dtype(np.uint16): 2, np.dtype(np.float32): 4}


def load(path=None):
    path = path or os.environ.get("GIP_LIB")
    if not path:
        cands = sorted(glob.glob(os.path.join(_ROOT, "build*", "libgip.so")))
        if not cands:
            raise RuntimeError("libgip.so not found: build it or set GIP_LIB")
        path = cands[0]
    lib = ctypes.CDLL(path)
    lib.gip_last_error.restype = ctypes.c_char_p
    return Gip(lib)


def _view(a):
    a3 = a if a.ndim == 3 else a[:, :, None]
    return Image(a.ctypes.data, a3.shape[1], a3.shape[0], a3.shape[2], _DT[a.dtype], a.strides[0],
                 0, 0)


class Gip:
    def __init__(self, lib):
        self.lib = lib
        self.ctx = ctypes.c_void_p()
        desc = (ctypes.c_int32 * 4)(1, 0, 0, 0)  # CPU backend
        if lib.gip_context_create(desc, ctypes.byref(self.ctx)):
            raise RuntimeError(lib.gip_last_error().decode())

    def _run(self, fn, src, dst, params):
        s, d = _view(src), _view(dst)
        st = fn(self.ctx, ctypes.byref(s), ctypes.byref(d), ctypes.byref(params))
        if st:
            raise RuntimeError("gip status %d: %s" % (st, self.lib.gip_last_error().decode()))
        return dst

    def gaussian_blur(self, src, ksize, sigma_x, sigma_y=0.0, border=4, value=0.0):
        src = np.ascontiguousarray(src)
        p = GaussianParams(ksize[0], ksize[1], sigma_x, sigma_y,
                           Border(CV2_TO_GIP[border], (ctypes.c_float * 4)(*([value] * 4))))
        return self._run(self.lib.gip_gaussian_blur, src, np.empty_like(src), p)

    def box_filter(self, src, ddepth, ksize, anchor=(-1, -1), normalize=True, border=4):
        src = np.ascontiguousarray(src)
        has = anchor[0] >= 0
        p = BoxParams(ksize[0], ksize[1], int(has), anchor[0] if has else 0,
                      anchor[1] if has else 0, int(not normalize), Border(CV2_TO_GIP[border]))
        out = np.empty(src.shape, np.float32 if ddepth == 5 else src.dtype)
        return self._run(self.lib.gip_box_filter, src, out, p)
