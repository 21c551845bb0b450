#!/bin/sh
# SPDX-License-Identifier: MIT
# The wheel as a user gets it (make test-wheel, CI): auditwheel must call it manylinux_2_28; a
# fresh venv in a temporary folder installs it with pip (timed); `import gip` must come from the
# venv, not from the source tree; `gip --version` must print the package's version; then the
# Python suite (python/tests, run from outside the tree) and the CLI smoke test (tests/cli) run
# against what was installed, and a C program built through the wheel's gip.pc.
# Environment: PYTHON (python3), DIST (dist), WHEEL (a wheel file; default: the newest in DIST
# for this Python), PYTEST_ARGS (extra pytest arguments).
set -eu
PYTHON=${PYTHON:-python3}
DIST=${DIST:-dist}
src=$(cd "$(dirname "$0")/.." && pwd)
tag=$("$PYTHON" -c "import sys; print('cp%d%d' % sys.version_info[:2])")
if [ -z "${WHEEL:-}" ]; then
    WHEEL=$(ls -t "$DIST"/gip_imaging-*-"$tag"-"$tag"-*manylinux*_x86_64.whl 2>/dev/null | head -n 1)
fi
if [ -z "$WHEEL" ] || [ ! -f "$WHEEL" ]; then
    echo "test-wheel: no $tag manylinux wheel in $DIST (make wheel makes one)" >&2
    exit 1
fi
WHEEL=$(cd "$(dirname "$WHEEL")" && pwd)/$(basename "$WHEEL")
echo "test-wheel: $WHEEL"

echo "== auditwheel show"
"$PYTHON" -m auditwheel show "$WHEEL" | tee "${TMPDIR:-/tmp}/gip-auditwheel.txt"
# manylinux_2_28 or an older glibc (which 2_28 systems satisfy too).
if ! tr '\n' ' ' <"${TMPDIR:-/tmp}/gip-auditwheel.txt" |
    grep -Eq 'consistent with the following platform tag: *"manylinux_2_(1[7-9]|2[0-8])_x86_64"'; then
    echo "test-wheel: auditwheel does not find the wheel manylinux_2_28_x86_64 compliant" >&2
    exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gip-wheel-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$PYTHON" -m venv "$work/venv"
venv_py="$work/venv/bin/python"
echo "== pip install (fresh venv)"
start=$(date +%s.%N)
"$venv_py" -m pip install -q --disable-pip-version-check "$WHEEL"
end=$(date +%s.%N)
echo "installed in $(echo "$end - $start" | bc) s"
# The suite's own requirements (the test and dask extras), not timed.
"$venv_py" -m pip install -q --disable-pip-version-check pytest opencv-python-headless \
    "dask[array]" "distributed>=2024.1"

cd "$work"
"$venv_py" - "$src" <<'PY'
import os, sys
import gip
src = os.path.realpath(sys.argv[1])
where = os.path.realpath(gip.__file__)
print("gip", gip.__version__, "from", where)
if where.startswith(src + os.sep):
    raise SystemExit("test-wheel: gip was imported from the source tree")
from importlib.metadata import version
if version("gip-imaging") != gip.__version__:
    raise SystemExit("test-wheel: gip.__version__ %s != the distribution's %s"
                     % (gip.__version__, version("gip-imaging")))
PY
echo "== gip --version"
"$work/venv/bin/gip" --version
want=$("$venv_py" -c "import gip; print(gip.__version__)")
"$work/venv/bin/gip" --version | head -n 1 | grep -qx "gip $want" || {
    echo "test-wheel: gip --version does not say $want" >&2
    exit 1
}
echo "== gip devices"
"$work/venv/bin/gip" devices

echo "== pytest against the installed wheel"
# From the temporary folder: the source tree's python/ is not on sys.path.
# shellcheck disable=SC2086
"$venv_py" -m pytest -q -p no:cacheprovider --rootdir "$work" "$src/python/tests" ${PYTEST_ARGS:-}

echo "== CLI smoke test against the installed gip"
sh "$src/tests/cli/cli_test.sh" "$work/venv/bin/gip" "$src/data" "$work/cli"

echo "== a C program through the wheel's gip.pc"
if command -v pkg-config >/dev/null 2>&1 && command -v cc >/dev/null 2>&1; then
    pc_dir=$("$venv_py" -c "import gip, os; print(os.path.join(os.path.dirname(gip.__file__), 'lib', 'pkgconfig'))")
    flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs gip)
    # shellcheck disable=SC2086
    cc "$src/tests/install/consumer/main.c" $flags -o "$work/consumer"
    "$work/consumer"
else
    echo "skipped: pkg-config and cc are needed"
fi
echo "test-wheel: ok"
