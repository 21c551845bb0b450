#!/bin/sh
# A/B of environment switches in one call (on the GPU machine, one device call): builds gip-bench
# and the named tests (Release, CUDA where nvcc is), runs the tests, times the benchmark rows under
# each variant in alternating rounds and prints the median milliseconds side by side, then runs
# compute-sanitizer on some tests with what is left of TOTAL_BUDGET seconds.
#
#   VARIANTS="base: rows4:GIP_F2D_RING_ROWS=4" variants, name:ENV=V+ENV2=V2 (nothing after ':' = as is)
#   OPS=filter2d3,sobel_mag FORMATS=u8c1,u8c3,f32c1 SIZES=1920x1080,3840x2160,7680x4320
#   ROUNDS=2 TIME=0.3                      rounds of all variants, gip-bench --time per row
#   TESTS="test_filter2d test_sobel"       tests to build and run first (empty: none)
#   SAN="memcheck:test_filter2d racecheck:test_sobel"  compute-sanitizer runs, SAN_CAP s each
#   BUILD=build-gpu                        build folder (kept between calls on a warm machine)
#   BACKEND=cuda                           gip-bench --backend (cpu: A/B of CPU switches here)
#   REV=HEAD~1                             also build libgip with REV's copy of the files under src/
#                                          and include/ that differ from the tree (files added or
#                                          removed since REV taken out or put in); a variant then
#                                          names @rev or @tree as its LD_LIBRARY_PATH, e.g.
#                                          VARIANTS="new:LD_LIBRARY_PATH=@tree old:LD_LIBRARY_PATH=@rev"
#                                          (gip-bench's RUNPATH yields to LD_LIBRARY_PATH)
#                                          REV must be in the history the GPU machine was sent:
#                                          there, that was main as it stood at the session's start
#                                          (the log's "commit" line shows it), so give a hash.
# Under $OUT (or out/ab): the table ab.txt, the log ab.log and the rest in ab-files.tgz.
set -u
cd "$(dirname "$0")/.." || exit 1
DEST=${OUT:-out/ab}
mkdir -p "$DEST"
rm -f "$DEST"/ab-*.json "$DEST"/ab-*.log "$DEST/ab.log" # a table of this call's runs only
BUILD=${BUILD:-build-gpu}
VARIANTS=${VARIANTS:-"base: rows4:GIP_F2D_RING_ROWS=4"}
OPS=${OPS:-filter2d3,sobel_mag,sobel_f32}
FORMATS=${FORMATS:-u8c1,u8c3,f32c1}
SIZES=${SIZES:-1920x1080,3840x2160,7680x4320}
ROUNDS=${ROUNDS:-2}
TIME=${TIME:-0.3}
TESTS=${TESTS-"test_filter2d test_sobel"}
SAN=${SAN:-}
SAN_CAP=${SAN_CAP:-150}
TOTAL_BUDGET=${TOTAL_BUDGET:-560} # the sanitizers (last) stop inside it: the device tool ends a call at 600 s
BACKEND=${BACKEND:-cuda}
T0=$(date +%s)
log() { echo "$*" | tee -a "$DEST/ab.log"; }

log "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
log "date: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null)"
if ! cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGIP_CUDA=ON -DGIP_BUILD_BENCH=ON \
    -DGIP_BUILD_PYTHON=OFF >"$DEST/configure.log" 2>&1; then
    log "CONFIGURE FAILED"; tail -30 "$DEST/configure.log"; exit 1
fi
# shellcheck disable=SC2086 # TESTS is a list of targets
if ! cmake --build "$BUILD" -j "$(nproc)" --target gip_bench $TESTS >"$DEST/build.log" 2>&1; then
    log "BUILD FAILED"; tail -40 "$DEST/build.log"; exit 1
fi
log "build: ok ($(($(date +%s) - T0)) s)"

# REV's library: built in place from REV's files (src, include and the CMake files that list them), the tree's files put back after (and touched, so
# that the next build compiles them again) and the tree's library too (the tests below and the
# sanitizer runs load the build folder's).
LIB_TREE=/tmp/gip-ab-tree LIB_REV=/tmp/gip-ab-rev
if [ -n "${REV:-}" ]; then
    rm -rf "$LIB_TREE" "$LIB_REV" /tmp/gip-ab-keep && mkdir -p "$LIB_TREE" "$LIB_REV" /tmp/gip-ab-keep
    cp -P "$BUILD"/libgip.so* "$LIB_TREE/"
    git rev-parse -q --verify "$REV^{commit}" >/dev/null || { log "REV $REV: not in this history"; exit 1; }
    # Files git does not track here (the machine may hold an older history than the tree it was
    # sent) are not in REV either: they are set aside too.
    files=$({ git diff --no-renames --name-only "$REV" -- src include CMakeLists.txt cmake &&
        git ls-files --others --exclude-standard -- src include CMakeLists.txt cmake; } | sort -u) ||
        { log "REV $REV: git diff failed"; exit 1; }
    # The differing files as REV has them: those REV lacks (added since) are set aside, those the
    # tree lacks (removed since) are written too; the sources are globbed, so the build follows.
    ours=$(for f in $files; do [ -e "$f" ] && echo "$f"; done)
    echo "$ours" | sed '/^$/d' >/tmp/gip-ab-keep/list
    tar cf /tmp/gip-ab-keep/tree.tar -T /tmp/gip-ab-keep/list
    for f in $files; do
        rm -f "$f"
        if git cat-file -e "$REV:$f" 2>/dev/null; then
            mkdir -p "$(dirname "$f")" && git show "$REV:$f" >"$f"
        fi
    done
    cmake --build "$BUILD" -j "$(nproc)" --target gip_shared >>"$DEST/build.log" 2>&1
    brc=$?
    cp -P "$BUILD"/libgip.so* "$LIB_REV/"
    # shellcheck disable=SC2086 # files is a list of paths (none with spaces: the repo's sources)
    rm -f $files
    tar xf /tmp/gip-ab-keep/tree.tar
    xargs -r touch </tmp/gip-ab-keep/list
    cp -P "$LIB_TREE"/libgip.so* "$BUILD/"
    [ $brc = 0 ] || { log "BUILD OF $REV FAILED"; tail -40 "$DEST/build.log"; exit 1; }
    log "rev $REV ($(git rev-parse --short "$REV")): $(echo "$files" | tr '\n' ' ')($(($(date +%s) - T0)) s)"
fi

for t in $TESTS; do
    bin=$(find "$BUILD" -name "$t" -type f -perm -u+x | head -1)
    "$bin" >"$DEST/$t.log" 2>&1
    rc=$?
    log "$t: $(tail -1 "$DEST/$t.log") (rc $rc)"
done
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for v in $VARIANTS; do
        name=${v%%:*} envs=$(echo "${v#*:}" | tr '+' ' ' | sed "s|@tree|$LIB_TREE|g; s|@rev|$LIB_REV|g")
        # shellcheck disable=SC2086 # envs is a list of assignments
        env $envs "$BUILD/gip-bench" --backend "$BACKEND" --no-npp --ops "$OPS" --formats "$FORMATS" \
            --sizes "$SIZES" --time "$TIME" --json "$DEST/ab-$name-$r.json" >"$DEST/ab-$name-$r.log" 2>&1 ||
            log "gip-bench $name round $r: rc $?"
    done
    r=$((r + 1))
done

# shellcheck disable=SC2086 # one argument a variant
python3 - "$DEST" $VARIANTS <<'EOF' | tee "$DEST/ab.txt"
import glob, json, os, sys
dest, variants = sys.argv[1], [v.split(':')[0] for v in sys.argv[2:]]
cols, table = [], {}
for name in variants:
    for path in sorted(glob.glob(os.path.join(dest, 'ab-%s-*.json' % name))):
        col = '%s%s' % (name, path.rsplit('-', 1)[1][:-5])
        cols.append(col)
        for row in json.load(open(path))['rows']:
            if row.get('impl') == 'gip' and row.get('status') == 'ok':
                key = (row['op'], row['size'], row['format'])
                table.setdefault(key, {})[col] = row['ms']
print('%-11s %-10s %-6s' % ('op', 'size', 'format') + ''.join('%11s' % c for c in cols))
for key in sorted(table):
    print('%-11s %-10s %-6s' % key + ''.join(
        '%11.4f' % table[key][c] if c in table[key] else '%11s' % '-' for c in cols))
EOF
for s in $SAN; do
    tool=${s%%:*} t=${s#*:}
    bin=$(find "$BUILD" -name "$t" -type f -perm -u+x | head -1)
    left=$((TOTAL_BUDGET - ($(date +%s) - T0)))
    cap=$SAN_CAP
    [ "$left" -lt "$cap" ] && cap=$left
    if [ "$cap" -lt 20 ]; then
        log "compute-sanitizer $tool $t: not run (the call's budget is spent)"
        continue
    fi
    GIP_TEST_QUICK=1 timeout "$cap" compute-sanitizer --tool "$tool" --report-api-errors no \
        --error-exitcode 9 "$bin" "$BACKEND" >"$DEST/san-$tool-$t.log" 2>&1
    rc=$?
    cut=""
    [ $rc = 124 ] && cut="cut at $cap s, "
    log "compute-sanitizer $tool $t: rc $rc ($cut$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' \
        "$DEST/san-$tool-$t.log" | tail -1))"
done

log "total: $(($(date +%s) - T0)) s"
# The device tool brings back at most 8 files: ab.txt, ab.log and one archive of the rest.
(cd "$DEST" && tar czf ab-files.tgz --exclude ab.txt --exclude ab.log --exclude ab-files.tgz -- * &&
    find . -maxdepth 1 -type f ! -name ab.txt ! -name ab.log ! -name ab-files.tgz -delete)
