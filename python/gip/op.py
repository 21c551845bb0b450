# SPDX-License-Identifier: MIT
"""Every registered operation (include/gip/op.h, docs/operations.md) as a function of its name,
generated from its descriptor when gip is imported: ``gip.op.gaussian(img, 15, sigma=2)``,
``gip.op.flip(img, 1)``. The image comes first, then the operation's positional parameters in
declaration order; the others are keywords (``help(gip.op.NAME)`` lists them with their types,
ranges and defaults); ``dst=`` and ``device=`` as every gip function takes them. Each is
``gip.apply(NAME, img, ...)``; those without a cv2-named wrapper of the same name are also
``gip.NAME``. An operation added to the library appears here without an edit in Python."""
from ._registry import _functions

globals().update(_functions())
__all__ = sorted(_functions())
