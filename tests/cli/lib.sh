#!/bin/sh
# SPDX-License-Identifier: MIT
# What the CLI test scripts share: the arguments (GIP DATA_DIR WORK_DIR), a fresh work folder,
# counters, and the run/expect/absent checks. Sourced, not run.
if [ $# -ne 3 ]; then
    echo "usage: $0 GIP DATA_DIR WORK_DIR" >&2
    exit 2
fi
GIP=$1
DATA=$2
WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK" || exit 1

checks=0
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# run STATUS ARGS...: runs gip ARGS, keeps stdout and stderr in $WORK/stdout and $WORK/stderr, and
# checks the exit status, and that a failure printed a message on stderr.
run() {
    want=$1
    shift
    checks=$((checks + 1))
    "$GIP" "$@" >"$WORK/stdout" 2>"$WORK/stderr"
    got=$?
    if [ "$got" -ne "$want" ]; then
        fail "gip $* exited $got, expected $want"
        sed 's/^/    | /' "$WORK/stderr"
        return 1
    fi
    if [ "$want" -ne 0 ] && ! grep -q "^gip" "$WORK/stderr"; then
        fail "gip $* exited $got without a 'gip ...' message on stderr"
        return 1
    fi
    return 0
}

# expect STATUS NEEDLE ARGS...: run, then check that stderr mentions NEEDLE (the option at fault).
expect() {
    want=$1
    needle=$2
    shift 2
    run "$want" "$@" || return 1
    if ! grep -q -e "$needle" "$WORK/stderr"; then
        fail "gip $*: message does not mention '$needle':"
        sed 's/^/    | /' "$WORK/stderr"
        return 1
    fi
    return 0
}

# absent FILE: a failed command left no file behind.
absent() {
    checks=$((checks + 1))
    if [ -e "$1" ]; then
        fail "$1 exists after a failed command"
    fi
}
