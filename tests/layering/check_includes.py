#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The folder-level include graph of src/: fails on a cycle between folders, and when src/core
includes anything outside core and the public headers (core knows no operation and no engine).

A folder is a source file's directory under src/ (core, engine/fft, ops/filter, io, pipeline ...).
An #include "X" is resolved as the compiler resolves it: beside the including file, then under
src/ and src/core/ (the library's private include paths), then under include/ (public headers,
which are not a folder of the graph). Usage: check_includes.py [SRC_DIR]; prints the graph."""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = ('.c', '.h', '.cu', '.cuh')


def main():
    src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                          os.path.join(os.path.dirname(__file__), '..', '..', 'src'))
    public = os.path.join(os.path.dirname(src), 'include')
    search = [src, os.path.join(src, 'core')]
    edges = {}  # (from folder, to folder) -> first "file: #include" that makes it
    folders = set()
    unresolved = []
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith(SOURCES):
                continue
            path = os.path.join(root, name)
            here = os.path.relpath(root, src)
            folders.add(here)
            with open(path, encoding='utf-8', errors='replace') as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                target = None
                for base in [root] + search:
                    cand = os.path.normpath(os.path.join(base, inc))
                    if os.path.isfile(cand):
                        target = cand
                        break
                if target is None:
                    if not os.path.isfile(os.path.join(public, inc)):
                        unresolved.append('%s: "%s"' % (os.path.relpath(path, src), inc))
                    continue
                if not target.startswith(src + os.sep):
                    continue  # ../fuzz and the like: not a folder of src/
                there = os.path.relpath(os.path.dirname(target), src)
                if there != here:
                    edges.setdefault((here, there), '%s: #include "%s"' %
                                     (os.path.relpath(path, src), inc))

    failures = []
    # Core includes only core and the public headers.
    for (a, b), why in sorted(edges.items()):
        if a == 'core':
            failures.append('core depends on %s (%s); core knows no operation and no engine: '
                            'register a hook with the context instead' % (b, why))

    # Cycles: the strongly connected components with more than one folder (Tarjan).
    graph = {f: sorted(b for (a, b) in edges if a == f) for f in folders}
    index, low, on, stack, comps = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for f in sorted(folders):
        if f not in index:
            visit(f)
    for comp in comps:
        lines = ['  %s -> %s (%s)' % (a, b, edges[(a, b)])
                 for (a, b) in sorted(edges) if a in comp and b in comp]
        failures.append('include cycle between %s:\n%s' % (', '.join(comp), '\n'.join(lines)))

    print('folder include graph of %s (%d folders, %d edges):' % (src, len(folders), len(edges)))
    for f in sorted(folders):
        print('  %-18s -> %s' % (f, ', '.join(graph[f]) if graph[f] else '(nothing)'))
    for u in unresolved:
        print('note: not found, ignored: %s' % u)
    if failures:
        print('\nFAILED:')
        for f in failures:
            print(f)
        return 1
    print('no cycle between folders; core includes only core and include/gip')
    return 0


if __name__ == '__main__':
    sys.exit(main())
