# SPDX-License-Identifier: MIT
"""Converts torchvision's VGG19 weights (vgg19-dcbb9e9d.pth) to the safetensors file gip reads.

Usage: python -m gip.convert_vgg19 IN.pth OUT.safetensors

Keeps the 16 convolutions of ``features`` (``features.N.weight`` float32 [out, in, 3, 3] and
``features.N.bias`` float32 [out]) under torchvision's names and drops the classifier. Needs
PyTorch to read the .pth file (a pickle); the safetensors file is written by this module itself.
"""
import json
import os
import struct
import sys

# torchvision's feature indices of VGG19's convolutions and their (out, in) channels.
VGG19_CONVS = [
    (0, 64, 3), (2, 64, 64), (5, 128, 64), (7, 128, 128), (10, 256, 128), (12, 256, 256),
    (14, 256, 256), (16, 256, 256), (19, 512, 256), (21, 512, 512), (23, 512, 512),
    (25, 512, 512), (28, 512, 512), (30, 512, 512), (32, 512, 512), (34, 512, 512),
]


def expected_shapes():
    """Key -> shape of every tensor the output holds."""
    shapes = {}
    for idx, cout, cin in VGG19_CONVS:
        shapes["features.%d.weight" % idx] = (cout, cin, 3, 3)
        shapes["features.%d.bias" % idx] = (cout,)
    return shapes


def write_safetensors(tensors, path):
    """Writes {key: (shape, little-endian float32 bytes)} as a safetensors file, atomically."""
    header, offset, blobs = {}, 0, []
    for key in sorted(tensors):
        shape, data = tensors[key]
        header[key] = {"dtype": "F32", "shape": list(shape),
                       "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    header["__metadata__"] = {"format": "pt", "source": "torchvision vgg19, gip.convert_vgg19"}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the data section starts 8-byte aligned
    tmp = path + ".tmp%d" % os.getpid()
    try:
        with open(tmp, "wb") as f:
            f.write(struct.pack("<Q", len(text)))
            f.write(text)
            for blob in blobs:
                f.write(blob)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def convert_state_dict(state):
    """Picks and checks VGG19's convolutions from a state dict of tensors (torch or numpy)."""
    import numpy as np

    out = {}
    for key, shape in expected_shapes().items():
        if key not in state:
            raise ValueError("%s is missing from the checkpoint (is it torchvision's VGG19?)" % key)
        value = state[key]
        if hasattr(value, "detach"):
            value = value.detach().cpu().float().numpy()
        arr = np.ascontiguousarray(np.asarray(value, dtype="<f4"))
        if tuple(arr.shape) != shape:
            raise ValueError("%s has shape %s, VGG19 has %s" % (key, tuple(arr.shape), shape))
        if not np.isfinite(arr).all():
            raise ValueError("%s holds non-finite values" % key)
        out[key] = (shape, arr.tobytes())
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(argv) != 1 else sys.stdout)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    src, dst = argv
    try:
        import torch
    except ImportError:
        print("gip.convert_vgg19: reading a .pth file needs PyTorch, which is not installed "
              "(pip install torch); gip itself runs without it, with a random network when no "
              "weights are given", file=sys.stderr)
        return 1
    try:
        try:
            state = torch.load(src, map_location="cpu", weights_only=True)
        except TypeError:  # PyTorch before 1.13 has no weights_only
            state = torch.load(src, map_location="cpu")
        if hasattr(state, "state_dict"):
            state = state.state_dict()
        tensors = convert_state_dict(state)
        write_safetensors(tensors, dst)
    except (OSError, ValueError, RuntimeError) as e:
        print("gip.convert_vgg19: %s: %s" % (src, e), file=sys.stderr)
        return 1
    print("wrote %s: %d tensors" % (dst, len(tensors)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
