#!/bin/sh
# Installs the built tree into a temporary prefix, then builds and runs a consumer through
# find_package(gip) (shared and static) and through pkg-config.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -eu
build=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
cmake -S "$src/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
    >"$work/configure.log"
cmake --build "$work/consumer" >"$work/build.log"
"$work/consumer/c"
"$work/consumer/cs"
if command -v pkg-config >/dev/null 2>&1; then
    flags=$(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs gip)
    # shellcheck disable=SC2086
    cc "$src/tests/install/consumer/main.c" $flags -o "$work/pc"
    LD_LIBRARY_PATH="$work/prefix/lib" "$work/pc"
fi
echo "install test: ok"
