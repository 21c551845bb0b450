# SPDX-License-Identifier: MIT
"""Image files and encoded bytes as cv2 reads and writes them: imread, imdecode, imwrite,
imencode."""
import os as _os

import numpy as _np

from . import _gip
from ._core import (IMREAD_COLOR, IMREAD_IGNORE_ORIENTATION, IMREAD_UNCHANGED,
                    IMWRITE_JPEG_PROGRESSIVE, IMWRITE_JPEG_QUALITY, IMWRITE_JPEG_SAMPLING_FACTOR,
                    IMWRITE_JPEG_SAMPLING_FACTOR_420, IMWRITE_JPEG_SAMPLING_FACTOR_422,
                    IMWRITE_JPEG_SAMPLING_FACTOR_444, IMWRITE_PNG_COMPRESSION, Image,
                    InvalidArgument, Unsupported, _host_array, _int, _ndarray, _raise, asimage)


def _load_mode(flags):
    """(libgip load mode, keep depth, ignore orientation) of cv2 imread flags. As cv2.imread, the
    EXIF orientation is applied unless IMREAD_IGNORE_ORIENTATION is set or the flags are
    IMREAD_UNCHANGED."""
    table = {-1: (0, False), 0: (1, False), 1: (2, False), 2: (1, True), 3: (2, True)}
    flags = _int(flags, "imread flags")
    base = flags if flags == IMREAD_UNCHANGED else flags & ~IMREAD_IGNORE_ORIENTATION
    # IMREAD_REDUCED_{GRAYSCALE,COLOR}_{2,4,8}: 16/17, 32/33, 64/65
    reduce = {16: 2, 32: 4, 64: 8}.get(base & 0x70, 1) if base >= 0 else 1
    if reduce > 1:
        base &= ~0x70
    if base not in table or (reduce > 1 and base not in (0, 1)):
        _raise(InvalidArgument, "imread flags %r: IMREAD_UNCHANGED, IMREAD_GRAYSCALE, "
               "IMREAD_COLOR, optionally | IMREAD_ANYDEPTH and | IMREAD_IGNORE_ORIENTATION; or "
               "IMREAD_REDUCED_GRAYSCALE_2/4/8, IMREAD_REDUCED_COLOR_2/4/8" % (flags,))
    mode, keep = table[base]
    ignore = flags == IMREAD_UNCHANGED or bool(flags & IMREAD_IGNORE_ORIENTATION)
    return mode, keep, ignore, reduce


def imread(filename, flags=IMREAD_COLOR, *, bgr=True):
    """Reads an image file (JPEG, PNG, PPM/PGM) into a numpy array, as cv2.imread: BGR(A)
    channel order by default (bgr=False gives RGB(A)); gray images are (H, W); IMREAD_GRAYSCALE
    gives cv2's gray (libjpeg's luma, libpng's RGB-to-gray); the EXIF orientation of JPEG and PNG
    files is applied unless flags has IMREAD_IGNORE_ORIENTATION or is IMREAD_UNCHANGED.
    IMREAD_REDUCED_COLOR_2/4/8 and IMREAD_REDUCED_GRAYSCALE_2/4/8 load at 1/N size as cv2 does
    (JPEG shrink-on-load by libjpeg's DCT scaling; other formats resized). Raises
    gip.NotFound / gip.CorruptData / gip.UnknownFormat instead of returning None."""
    mode, keep, ignore, reduce = _load_mode(flags)
    return _np.asarray(_gip.imread(_os.fspath(filename), mode, bgr, keep, ignore, reduce))


def imdecode(buf, flags=IMREAD_COLOR, *, bgr=True):
    """Decodes an encoded image held in memory (bytes or a uint8 array), as cv2.imdecode."""
    mode, keep, ignore, reduce = _load_mode(flags)
    if isinstance(buf, _ndarray):
        buf = _np.ascontiguousarray(buf).tobytes()
    return _np.asarray(_gip.imdecode(buf, mode, bgr, keep, ignore, reduce))


_EXT = {".jpg": 1, ".jpeg": 1, ".jpe": 1, ".png": 2, ".ppm": 3, ".pgm": 3, ".pnm": 3}
_SAMPLING = {IMWRITE_JPEG_SAMPLING_FACTOR_444: 1, IMWRITE_JPEG_SAMPLING_FACTOR_422: 2,
             IMWRITE_JPEG_SAMPLING_FACTOR_420: 3}


def _save_params(fmt, params, bgr):
    q = sub = prog = png = 0
    params = list(params or [])
    if len(params) % 2:
        _raise(InvalidArgument, "params must be pairs (flag, value)")
    for flag, value in zip(params[::2], params[1::2]):
        flag = _int(flag, "params flag")
        value = _int(value, "params value")
        if flag == IMWRITE_JPEG_QUALITY:
            q = value
        elif flag == IMWRITE_JPEG_PROGRESSIVE:
            prog = int(bool(value))
        elif flag == IMWRITE_PNG_COMPRESSION:
            png = value
        elif flag == IMWRITE_JPEG_SAMPLING_FACTOR:
            if value not in _SAMPLING:
                _raise(InvalidArgument, "IMWRITE_JPEG_SAMPLING_FACTOR %r: 420, 422 or 444" % value)
            sub = _SAMPLING[value]
        else:
            _raise(Unsupported, "imwrite parameter %r is not supported (JPEG quality, progressive,"
                   " sampling factor; PNG compression)" % (flag,))
    return (fmt, q, sub, prog, png, int(bool(bgr)))


def _host_image(img):
    if isinstance(img, Image) and img.is_cuda:
        return img.download()
    if isinstance(img, _ndarray) or isinstance(img, Image):
        return img
    kind, _ = _gip.where(img)
    if kind == "cuda":
        return asimage(img).download()
    return _host_array(img)


def imwrite(filename, img, params=None, *, bgr=True):
    """Writes an image as cv2.imwrite (format from the extension; params as cv2's list of
    (flag, value) pairs). Device images are downloaded first. The file is replaced atomically:
    a failure never leaves a partial file. Returns True; raises gip.Error on failure."""
    path = _os.fspath(filename)
    _gip.imwrite(path, _host_image(img), _save_params(0, params, bgr))
    return True


def imencode(ext, img, params=None, *, bgr=True):
    """Encodes an image in memory as cv2.imencode: returns (True, 1-D uint8 array)."""
    fmt = _EXT.get(ext.lower() if ext.startswith(".") else "." + ext.lower())
    if fmt is None:
        _raise(Unsupported, "imencode: extension %r: .jpg, .png, .ppm, .pgm" % (ext,))
    data = _gip.imencode(_host_image(img), _save_params(fmt, params, bgr))
    return True, _np.frombuffer(data, _np.uint8)
