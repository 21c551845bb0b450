# SPDX-License-Identifier: MIT
"""Neural style transfer (Gatys et al.): the content image rendered in the style of a texture,
with VGG19 features (a seeded random VGG19 unless --weights names a .safetensors file made by
python -m gip.convert_vgg19), L-BFGS, progress printed every few iterations."""
import os
import time

import gip
from _common import DATA, parse


def main():
    args, dev = parse(__doc__.splitlines()[0], default_image="astronaut.png",
                      style=(str, os.path.join(DATA, "gravel.png"), "style image"),
                      size=(int, 256, "shorter side of the output"),
                      iters=(int, 100, "L-BFGS iterations"),
                      weights=(str, None, "VGG19 .safetensors (default: random VGG19)"))
    content, style = gip.imread(args.image), gip.imread(args.style)

    def show(p):
        print("  iteration %3d/%d  loss %.4g (content %.4g, style %.4g)  %.1f it/s" %
              (p["iteration"], p["iterations"], p["loss"], p["content"], p["style"],
               p["iteration"] / p["seconds"] if p["seconds"] > 0 else 0.0))

    t0 = time.perf_counter()
    out = gip.style_transfer(content, style, size=args.size, iterations=args.iters,
                             weights=args.weights, progress=show, progress_every=20, device=dev)
    print("%s style transfer: %.2f s for %d iterations at %dx%d" %
          (dev.name.upper(), time.perf_counter() - t0, args.iters, out.shape[1], out.shape[0]))
    path = os.path.join(args.out, "style_transfer.jpg")
    gip.imwrite(path, out)
    print("wrote", path)


if __name__ == "__main__":
    main()
