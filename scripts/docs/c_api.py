#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The C API reference from the public headers: each header's own summary, then every exported
function (GIP_API) and every documented type with the comment that precedes it, as Markdown.

Fails (exit 1) when a GIP_API function has no comment, when a header of include/gip/ is not
reached from gip/gip.h, or, given --lib, when the library exports a gip_* function that no
header declares: the reference lists every public function or the build stops.

usage: c_api.py INCLUDE_DIR OUT.md [--lib libgip.so]
"""
import argparse
import os
import re
import subprocess
import sys

DECL = re.compile(r"GIP_API\s+([^;{]*?)\b(gip_[a-z0-9_]+)\s*\(", re.S)
TYPE = re.compile(r"^typedef\s+(struct|enum|union)?\s*([a-z0-9_]*)", re.M)


def clean_comment(text):
    """The text of a /** ... */ or /* ... */ block without its markers and leading stars."""
    text = re.sub(r"^/\*\*?|\*/$", "", text.strip())
    lines = [re.sub(r"^\s*\* ?", "", ln) for ln in text.splitlines()]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    import textwrap
    # Rulers ("----", "---- building from C ----") are section marks in a header, not text.
    lines = [re.sub(r"^\s*-{3,}\s*(.*?)\s*-*\s*$", r"\1", ln) for ln in lines]
    while lines and not lines[0].strip():
        lines.pop(0)
    lines = textwrap.dedent("\n".join(lines)).splitlines()
    out = []
    for ln in lines:
        ln = ln.rstrip()
        m = re.match(r"@return\s*(.*)", ln)
        if m:
            ln = "**Returns** " + m.group(1)
        out.append(ln)
    return "\n".join(out)


def preceding_comment(src, pos):
    """The comment block that ends right before pos (only blank space between), or None."""
    head = src[:pos].rstrip()
    if not head.endswith("*/"):
        return None
    start = head.rfind("/*")
    return head[start:] if start >= 0 else None


def statement_end(src, pos):
    """Where the declaration starting at pos ends (its ';' at depth 0)."""
    depth = 0
    for i in range(pos, len(src)):
        c = src[i]
        if c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
        elif c == ";" and depth == 0:
            return i + 1
    return len(src)


def md_text(comment):
    """A comment as Markdown: prose lines joined, indented lines kept as they are."""
    text = comment.replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("[", "\\[").replace("]", "\\]").replace("*", "\\*").replace("_", "\\_")


def header_order(inc):
    """The headers as gip/gip.h includes them (and they include), then any other."""
    names = []

    def visit(h):
        for n in re.findall(r'#include "gip/([a-z0-9_]+\.h)"', open(os.path.join(inc, h)).read()):
            if n not in names:
                names.append(n)
                visit(n)

    visit("gip.h")
    others = sorted(f for f in os.listdir(inc) if f.endswith(".h") and f not in names and f != "gip.h")
    return names, others


def parse(path):
    src = open(path).read()
    # The file's summary: the comment after the SPDX line.
    m = re.match(r"\s*/\*[^\n]*SPDX[^\n]*\*/\s*(/\*.*?\*/)", src, re.S)
    summary = clean_comment(m.group(1)) if m else ""
    items = []
    for m in DECL.finditer(src):
        start = m.start()
        end = statement_end(src, start)
        decl = " ".join(src[start:end].replace("GIP_API", "").split())
        decl = decl.replace("( ", "(").replace(" )", ")")
        items.append(["function", m.group(2), decl, preceding_comment(src, start), start, end])
    for m in TYPE.finditer(src):
        start = m.start()
        end = statement_end(src, start)
        body = src[start:end]
        name = re.findall(r"\b(gip_[a-z0-9_]+)\s*;\s*$", body)
        name = name[0] if name else m.group(2)
        if not name.startswith("gip_"):
            continue
        comment = preceding_comment(src, start)
        if comment is None:
            continue
        items.append(["type", name, body.strip(), comment, start, end])
    items.sort(key=lambda it: it[4])
    # A declaration right after another one (nothing but space between) shares its comment:
    # a group of functions under one comment, or a function after the type it takes.
    for prev, it in zip(items, items[1:]):
        if it[3] is None and prev[3] is not None and not src[prev[5]:it[4]].strip():
            it[3] = ""
            it.append(prev[6] if len(prev) > 6 else prev[1])
    return summary, items


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("include")
    ap.add_argument("out")
    ap.add_argument("--lib", help="the built libgip.so: its exported gip_* functions must be declared")
    a = ap.parse_args()
    inc = os.path.join(a.include, "gip")
    names, others = header_order(inc)
    errors = []
    if others:
        errors.append("headers not included by gip/gip.h: " + ", ".join(others))
    declared = set()
    out = ["# C API", "",
           "Generated from the comments of the public headers (`include/gip/*.h`) by "
           "`scripts/docs/c_api.py`; every function libgip exports is listed. One header gives "
           "them all: `#include <gip/gip.h>`; link with `find_package(gip)` (`gip::gip`) or "
           "`pkg-config --cflags --libs gip`. Conventions: every function returns a "
           "`gip_status` (`GIP_OK` is 0) and sets a message (`gip_last_error()`); parameter "
           "structs are zero-initialised for the defaults; where the images live decides the "
           "backend.", ""]
    toc = []
    body = []
    count = 0
    for h in names + others:
        summary, items = parse(os.path.join(inc, h))
        funcs = [it for it in items if it[0] == "function"]
        anchor = "gip-" + h.replace(".", "-")
        toc.append(f"- [`gip/{h}`](#{anchor}): {len(funcs)} functions")
        body += [f"## gip/{h} {{ #{anchor} }}", "", md_text(summary), ""]
        for kind, name, decl, comment, *rest in items:
            shared = rest[2] if len(rest) > 2 else None
            if kind == "function":
                declared.add(name)
                count += 1
                if comment is None:
                    errors.append(f"{h}: {name} has no comment")
                body += [f"### {name}", "", "```c", decl, "```", ""]
                if shared:
                    body += [f"Documented with [`{shared}`](#{shared}) above.", ""]
                elif comment:
                    body += [md_text(clean_comment(comment)), ""]
            else:
                body += [f"### {name}", "", md_text(clean_comment(comment)), "", "```c", decl, "```", ""]
    out += toc + [""] + body
    if a.lib:
        try:
            nm = subprocess.run(["nm", "-D", "--defined-only", a.lib], check=True,
                                capture_output=True, text=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit(f"c_api.py: cannot list the symbols of {a.lib}: {e}")
        exported = set(re.findall(r" T (gip_[a-z0-9][a-z0-9_]*)$", nm, re.M))
        missing = sorted(exported - declared)
        if missing:
            errors.append("exported by the library but in no public header: " + ", ".join(missing))
    if errors:
        for e in errors:
            print("c_api.py: " + e, file=sys.stderr)
        sys.exit(1)
    with open(a.out, "w") as f:
        f.write("\n".join(out).rstrip() + "\n")
    print(f"c_api.py: {count} functions from {len(names + others)} headers -> {a.out}")


if __name__ == "__main__":
    main()
