#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The gallery: every registered operation run on a bundled sample, its output beside the
command that made it. Each command is the operation's own example (`gip NAME --help` builds it
from the registry's declarations), with a few arguments chosen for a picture where the
example's values are the tests' (a 7x5 resize shows nothing). Writes OUT/gallery.md and
OUT/gallery/*.jpg; fails when an operation has no entry or its command fails.

Operations whose extra input cannot come from an image file (float maps, s16 derivatives) run
through the Python package (`import gip`, as `pip install .` gives it) with numpy inputs.

usage: gallery.py GIP DATA_DIR OUT_DIR
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

# Arguments for a picture where the example's are the tests' (too small or too subtle to see).
PICTURE_ARGS = {
    "resize": "--dsize 256x256 --interpolation area",
    "thumbnail": "128",
    "crop": "128 96 256 256",
    "warp_affine": "'0.9,0.2,10,-0.2,0.9,90'",
    "warp_perspective": "'0.9,0.1,10,-0.1,0.9,60,0.0003,0.0002,1'",
    "copy_make_border": "--top 32 --bottom 32 --left 32 --right 32 --border reflect",
    "gaussian": "--ksize 15",
    "box": "--ksize 9",
    "median": "9",
    "unsharp": "--ksize 9 --amount 2",
    "scharr": "--dx 1 --dtype u8",
    "sobel": "--dx 1 --dtype u8",
    "laplacian": "--dtype u8",
    "dilate": "--ksize 7",
    "erode": "--ksize 7",
    "morphology": "gradient --ksize 5",
    "add": "--value 60",
    "subtract": "--value 60",
    "multiply": "--value 1.5",
    "divide": "--value 2",
    "absdiff": "--value 128",
    "max": "--value 128",
    "min": "--value 128",
    "bitwise_and": "--value 240",
    "bitwise_or": "--value 15",
    "bitwise_xor": "--value 255",
    "normalize": "--alpha 64 --beta 192",
    "convert_scale_abs": "--alpha 2 --beta -128",
    "lut": ",".join(str(i // 64 * 85) for i in range(256)),  # posterise to four levels
}
# Operations whose sample is the gray image, besides those that take one channel only.
GRAY = {"spectrum", "canny", "threshold", "inrange"}


def run(cmd, hint=""):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"gallery: failed ({r.returncode}): {' '.join(map(shlex.quote, cmd))}\n{r.stderr}"
                 + hint)
    return r.stdout


def example(gip, name):
    """The operation's example arguments from its --help (without 'gip NAME' and the files)."""
    text = run([gip, name, "--help"])
    lines = text.splitlines()
    line = lines[lines.index("Example:") + 1].strip()
    words = shlex.split(line)
    assert words[:2] == ["gip", name] and words[-2:] == ["in.png", "out.png"], line
    words = words[2:-2]
    # The example names its extra images (--src2 src2.png): the gallery gives its own.
    args = []
    while words:
        w = words.pop(0)
        if w.startswith("--") and words and words[0].endswith(".png"):
            words.pop(0)
            continue
        args.append(w)
    return args


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    gip, data, out = sys.argv[1:]
    gip = os.path.abspath(gip)
    pics = os.path.join(out, "gallery")
    os.makedirs(pics, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gip-gallery-") as work:
        make(gip, data, out, pics, work)


def make(gip, data, out, pics, work):
    ops = json.loads(run([gip, "ops", "--json"]))

    # The samples: astronaut (colour), its gray, a second image of its size, a mask, a frame.
    colour = os.path.join(data, "astronaut.png")
    gray = os.path.join(work, "gray.png")
    src2 = os.path.join(work, "src2.png")
    src2_gray = os.path.join(work, "src2_gray.png")
    mask = os.path.join(work, "mask.png")
    frame = os.path.join(work, "frame_i420.png")
    run([gip, "gray", colour, gray])
    run([gip, "resize", "--dsize", "512x512", os.path.join(data, "coffee.png"), src2])
    run([gip, "gray", src2, src2_gray])
    run([gip, "threshold_auto", gray, mask])
    run([gip, "yuv420", "--layout", "i420", colour, frame])
    run([gip, "convert", "--quality", "90", colour, os.path.join(pics, "input.jpg")])
    run([gip, "convert", "--quality", "90", gray, os.path.join(pics, "input_gray.jpg")])
    inputs = {"src2": src2, "mask": mask}

    entries = []
    for op in ops:
        name = op["name"]
        one_channel = op["channels"].strip() == "1"
        sample = gray if (one_channel or name in GRAY) else colour
        dst = os.path.join(pics, name + ".jpg")
        if name == "convert":  # the CLI's own convert command shadows the operation's
            shown = "gip run 'convert u8 scale=0.5 offset=64' in.png out.png"
            run([gip, "run", "--quality", "90", "convert u8 scale=0.5 offset=64", sample, dst])
        elif name in ("remap", "canny_dxdy"):
            shown = python_entry(name, sample, dst)
        else:
            args = shlex.split(PICTURE_ARGS[name]) if name in PICTURE_ARGS else example(gip, name)
            files = []
            for inp in op["inputs"]:
                if inp["optional"] and name not in ("mask",):
                    continue
                # A second operand or a mask from the samples; any other image the operation
                # reads is given the sample itself (same size and type).
                path = inputs.get(inp["name"], sample)
                if inp["name"] == "src2" and (sample == gray or name == "insert_channel"):
                    path = src2_gray
                files += ["--" + inp["name"].replace("_", "-"), path]
            if name == "yuv":
                sample, args = frame, ["--layout", "i420", "--to", "bgr"]
            if name == "bayer":
                args = ["--pattern", "bg", "--to", "bgr"]
            cmd = [gip, name] + args + files + ["--quality", "90", sample, dst]
            run(cmd, f"(the example of gip {name} --help does not run on the sample: give the "
                     "operation arguments that do in PICTURE_ARGS of scripts/docs/gallery.py)\n")
            shown = " ".join(["gip", name] + [shlex.quote(a) if len(a) <= 60 else "TABLE"
                                              for a in args + files]
                             + [os.path.basename(sample), "out.jpg"])
            shown = shown.replace(work + "/", "").replace(data + "/", "")
        entries.append((op, shown, sample))

    missing = [op["name"] for op in ops if not os.path.exists(os.path.join(pics, op["name"] + ".jpg"))]
    if missing:
        sys.exit("gallery: no picture for " + ", ".join(missing))
    write_page(out, entries, gray)
    print(f"gallery: {len(entries)} operations -> {out}/gallery.md")


def python_entry(name, sample, dst):
    """remap and canny_dxdy read float maps or s16 derivatives: through the Python package."""
    try:
        import numpy as np
        import gip as g
    except ImportError as e:
        sys.exit(f"gallery: {name} needs the gip Python package and numpy ({e}); "
                 "pip install . first (make test does)")
    img = g.imread(sample, g.IMREAD_UNCHANGED)
    if name == "remap":
        h, w = img.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        map1 = (xx + 12 * np.sin(yy / 16)).astype(np.float32)
        map2 = (yy + 12 * np.cos(xx / 16)).astype(np.float32)
        res = g.apply("remap", img, map1=map1, map2=map2)
        shown = ("out = gip.apply('remap', img, map1=x + 12 sin(y / 16), map2=y + 12 cos(x / 16))"
                 "  # float32 maps")
    else:
        dx = g.apply("sobel", img, dx=1, dy=0, dtype="s16")
        dy = g.apply("sobel", img, dx=0, dy=1, dtype="s16")
        res = g.apply("canny_dxdy", dx, threshold1=50, threshold2=150, dy=dy)
        shown = ("out = gip.apply('canny_dxdy', dx, threshold1=50, threshold2=150, dy=dy)"
                 "  # dx, dy: Sobel to s16")
    g.imwrite(dst, np.asarray(res))
    return shown


def write_page(out, entries, gray):
    lines = ["# Gallery", "",
             "Every registered operation on a bundled sample (`data/astronaut.png`, or its gray "
             "version for operations that take one channel), made by the documentation build "
             "(`scripts/docs/gallery.py`) with the command shown. The arguments are each "
             "operation's example from its `--help`, or chosen for a visible result; every "
             "parameter is in the [operations reference](operations.md).", "",
             "| input | gray input |", "|---|---|",
             "| ![astronaut](gallery/input.jpg){ width=256 } | "
             "![astronaut, gray](gallery/input_gray.jpg){ width=256 } |", ""]
    family = None
    for op, shown, sample in sorted(entries, key=lambda e: (e[0]["family"], e[0]["name"])):
        if op["family"] != family:
            family = op["family"]
            lines += [f"## {family}", ""]
        name = op["name"]
        lines += [f"### {name}", "", op["summary"] + f" [Reference](operations.md#{name}).", "",
                  "```sh" if not shown.startswith("out =") else "```python", shown, "```", "",
                  f"![{name}](gallery/{name}.jpg){{ width=384 }}", ""]
    with open(os.path.join(out, "gallery.md"), "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
