# SPDX-License-Identifier: MIT
"""Neural style transfer (gip_style_transfer): gip.style_transfer."""
import os as _os

import numpy as _np

from . import _gip
from ._core import (COLOR_BGR2RGB, COLOR_BGRA2RGBA, COLOR_RGB2BGR, InvalidArgument, _alloc,
                    _finish, _image_out, _int, _prep, _raise, _real)
from ._cv2 import cvt_color


_STYLE_POOL = {"avg": 2, "max": 1}
_STYLE_INIT = {"content": 0, "style": 1, "noise": 2}
_STYLE_OPT = {"lbfgs": 0, "adam": 1}
_STYLE_LS = {"armijo": 3, "none": 1, "strong_wolfe": 2, "strong-wolfe": 2}


def _style_choice(table, value, what):
    try:
        return table[value]
    except (KeyError, TypeError):
        _raise(InvalidArgument, "%s %r is invalid: one of %s" % (what, value, ", ".join(table)))


@_image_out
def style_transfer(content, style, dst=None, *, size=512, iterations=300, content_weight=1.0,
                   style_weight=300.0, tv_weight=0.0, pool="avg", init="content", seed=0,
                   history=10, optimizer="lbfgs", line_search="armijo", lr=0.0, tf32=True,
                   layer_norm=True, weights=None, progress=None, progress_every=10, bgr=True,
                   device=None):
    """Gatys neural style transfer (gip_style_transfer): renders `content` in the style of
    `style` with VGG19 features (content conv4_2, style conv1_1..conv5_1, normalised Gram
    matrices). `weights` is a .safetensors VGG19 (torchvision names, see gip.convert_vgg19);
    without it a seeded random VGG19 is used. The content's shorter side becomes `size` (None:
    keep the content's size). optimizer 'lbfgs' (line_search 'armijo', 'none' as
    torch.optim.LBFGS, or 'strong_wolfe') or 'adam' (lr: step, 0 for the default).
    `progress(info)` is called every `progress_every` iterations with a dict (iteration,
    iterations, evaluations, loss, content, style, tv, seconds); a true result stops early and the
    best image so far is returned. Ctrl-C stops too (the KeyboardInterrupt is raised after dst is
    written). Images are uint8 with 1, 3 or 4 channels, BGR(A) order by default as imread gives
    (bgr=False for RGB); the result is a uint8 (H, W, 3) image in the same order."""
    nums = (_int(iterations, "iterations"), _real(content_weight, "content_weight"),
            _real(style_weight, "style_weight"), _real(tv_weight, "tv_weight"))
    ints = (_int(seed, "seed"), _int(history, "history"))
    lr, every = _real(lr, "lr"), _int(progress_every, "progress_every")
    size = None if size is None else _int(size, "size")
    ctx, (c, s), up = _prep(device, (content, style))
    if bgr:
        c = cvt_color(c, COLOR_BGR2RGB if c.shape[-1] == 3 else COLOR_BGRA2RGBA, device=device) \
            if len(c.shape) == 3 else c
        s = cvt_color(s, COLOR_BGR2RGB if s.shape[-1] == 3 else COLOR_BGRA2RGBA, device=device) \
            if len(s.shape) == 3 else s
    h, w = c.shape[:2]
    ow, oh = (w, h) if size is None else _gip.style_output_size(w, h, size)
    out = _alloc(ctx, c, (oh, ow, 3), _np.uint8, None if bgr else dst, up)
    flags = (0 if layer_norm else 1) | (0 if tf32 else 2)
    _gip.style_transfer(ctx, c, s, out, *nums,
                        _style_choice(_STYLE_POOL, pool, "pool"),
                        _style_choice(_STYLE_INIT, init, "init"), *ints,
                        _style_choice(_STYLE_OPT, optimizer, "optimizer"),
                        _style_choice(_STYLE_LS, line_search, "line_search"), lr, flags, every,
                        None if weights is None else _os.fspath(weights), progress)
    if bgr:
        out = cvt_color(out, COLOR_RGB2BGR, dst if not up else None, device=device)
    return _finish(ctx, out, up, dst)
