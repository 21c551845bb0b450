# SPDX-License-Identifier: MIT
"""Argument handling shared by the examples: input image, output folder, device."""
import argparse
import os

import gip

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    "data")


def parse(description, default_image="chelsea.png", **extra):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("image", nargs="?", default=os.path.join(DATA, default_image))
    p.add_argument("--out", default=".", help="folder for the output images")
    p.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    for name, (kind, default, helptext) in extra.items():
        p.add_argument("--" + name, type=kind, default=default, help=helptext)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    dev = gip.Device(args.device)
    print("gip %s on %s" % (gip.__version__, dev.describe))
    if dev.kind == "cpu" and gip.unavailable_reason():
        print("(no GPU: %s)" % gip.unavailable_reason())
    return args, dev
