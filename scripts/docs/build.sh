#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the documentation site (`make docs`): stages docs/ in build/docs-src with the pages
# generated from the sources and the built binary (the command-line and C API references, the
# gallery, the changelog), checks that the committed generated pages are current
# (docs/operations.md from the registry, docs/performance.md and the README's table from the
# benchmark data), then runs
# `mkdocs build --strict` into build/docs-site: a warning, a broken link or anchor, or an
# operation without its reference entry or gallery picture fails the build.
# Usage: scripts/docs/build.sh [BUILD_DIR]   (default: build/; gip and libgip built there)
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
PYTHON=${PYTHON:-python3}
MKDOCS=${MKDOCS:-$PYTHON -m mkdocs} # MKDOCS: mkdocs from another environment, e.g. a venv's
GIP=$BUILD/gip
SRC=$ROOT/build/docs-src
cd "$ROOT"
if [ ! -x "$GIP" ]; then
    echo "docs: $GIP does not exist: build first (make docs does)" >&2
    exit 1
fi
LIB=$(ls "$BUILD"/libgip.so "$BUILD"/libgip.dylib 2>/dev/null | head -n 1 || true)

rm -rf "$SRC"
mkdir -p "$SRC"
cp -R docs/. "$SRC/"
rm -rf "$SRC/performance/data"

# The committed generated pages must be what the sources give.
if ! "$GIP" ops --markdown | cmp -s - docs/operations.md; then
    echo "docs: docs/operations.md is not current: $GIP ops --markdown > docs/operations.md" >&2
    exit 1
fi
"$PYTHON" scripts/docs/performance.py docs/performance/data docs/performance.md \
    --readme README.md --check

# The pages made from the binary and the headers.
"$PYTHON" scripts/docs/cli_reference.py "$GIP" "$SRC/cli-reference.md"
"$PYTHON" scripts/docs/c_api.py include "$SRC/c-api.md" ${LIB:+--lib "$LIB"}
"$PYTHON" scripts/docs/gallery.py "$GIP" data "$SRC"
cp CHANGELOG.md "$SRC/changelog.md"

# Every registered operation has its reference entry and its gallery picture.
"$GIP" ops --json | "$PYTHON" -c '
import json, os, sys
src = sys.argv[1]
ref = open(os.path.join(src, "operations.md")).read()
gal = open(os.path.join(src, "gallery.md")).read()
bad = [o["name"] for o in json.load(sys.stdin)
       if "\n## %s\n" % o["name"] not in ref or "(gallery/%s.jpg)" % o["name"] not in gal]
if bad:
    sys.exit("docs: no reference entry or gallery picture for: " + ", ".join(bad))
' "$SRC"

$MKDOCS build --strict -f mkdocs.yml
echo "docs: the site is in build/docs-site (open build/docs-site/index.html)"
