#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The command-line reference from the binary itself: `gip --help`, then every command's
`gip CMD --help` (the operations' come from the registry), as Markdown. Fails when a command's
help cannot be printed or lacks its usage line or example.

usage: cli_reference.py GIP OUT.md
"""
import re
import subprocess
import sys


def helptext(gip, *args):
    r = subprocess.run([gip, *args, "--help"], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"cli_reference: gip {' '.join(args)} --help exited {r.returncode}: {r.stderr}")
    return r.stdout


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    gip, out = sys.argv[1:]
    top = helptext(gip)
    sections = {}
    current = None
    for line in top.splitlines():
        if line.startswith("Operations ("):
            current = "ops"
        elif line.startswith("Other commands:"):
            current = "cmds"
        elif not line.strip():
            current = None
        elif current and line.startswith("  "):
            name, summary = line.strip().split(None, 1)
            sections.setdefault(current, []).append((name, summary))
    if len(sections.get("ops", [])) < 10 or not sections.get("cmds"):
        sys.exit("cli_reference: gip --help does not list the commands")
    md = ["# Command-line reference", "",
          "Generated from the `gip` binary (`gip --help` and `gip COMMAND --help`) by "
          "`scripts/docs/cli_reference.py`. Options common to many commands (device, threads, "
          "timing, memory bound, overwriting) and how images load and save are explained in "
          "[the CLI guide](cli.md); each operation's parameters in full in the "
          "[operations reference](operations.md).", "",
          "```text", top.rstrip(), "```", "", "## Commands", ""]
    for name, summary in sections["cmds"]:
        md += [f"- [`{name}`](#{name}): {summary}"]
    md += ["", "## Operations", ""]
    for name, summary in sections["ops"]:
        md += [f"- [`{name}`](#{name}): {summary}"]
    md += [""]
    for title, key in (("Commands", "cmds"), ("Operations", "ops")):
        md += [f"## {title}: help", ""]
        for name, _ in sections[key]:
            text = helptext(gip, name)
            if not text.startswith(f"Usage: gip {name}") or not re.search(r"^Example:\n  gip ", text, re.M):
                sys.exit(f"cli_reference: gip {name} --help lacks its usage line or its example")
            md += [f"### {name}", "", "```text", text.rstrip(), "```", ""]
    with open(out, "w") as f:
        f.write("\n".join(md))
    print(f"cli_reference: {len(sections['cmds'])} commands, {len(sections['ops'])} operations -> {out}")


if __name__ == "__main__":
    main()
