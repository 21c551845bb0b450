#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of `gip run`: one file, parse errors with positions (exit 2), a batch folder with a corrupt
# and a truncated file (reported, skipped, exit 1, the others written), --overwrite, and a batch
# killed with SIGKILL mid-run that must leave only complete images and no temporary file.
# Usage: pipeline_test.sh PATH/TO/gip DATA_DIR WORK_DIR
set -u
. "$(dirname "$0")/lib.sh"

ok() {
    checks=$((checks + 1))
    if ! eval "$1"; then fail "$2"; fi
}

# ---- one file ---------------------------------------------------------------------------------
run 0 run 'gaussian 15 | sobel dx=1 | invert' "$DATA/astronaut.png" "$WORK/one.png"
ok '"$GIP" info "$WORK/one.png" | grep -q "512x512, 3 channels"' "one.png is not a 512x512 RGB PNG"
run 0 run 'gaussian ksize=15 sigma=2.6 | edges' "$DATA/rocket.jpg" "$WORK/edges.jpg"
ok '"$GIP" info "$WORK/edges.jpg" | grep -q "1 channel"' "edges.jpg is not gray"
# the pipeline equals the subcommands one by one (PNG: exact)
run 0 gaussian --ksize 15 "$DATA/astronaut.png" "$WORK/g.png"
run 0 invert "$WORK/g.png" "$WORK/gi.png"
run 0 run 'gaussian 15 | invert' "$DATA/astronaut.png" "$WORK/gi2.png"
ok 'cmp -s "$WORK/gi.png" "$WORK/gi2.png"' "gip run 'gaussian 15 | invert' differs from gaussian then invert"

# ---- shrink-on-load: a JPEG run through thumbnail first is decoded at 1/8 here (80x54 holds the
# 64x43 thumbnail of 640x427), the same by the command, gip run and the batch engine;
# shrink_on_load=0 decodes it whole (tests/test_thumbnail.c checks the pixels of both)
run 0 thumbnail 64 "$DATA/rocket.jpg" "$WORK/t_cmd.png"
run 0 run 'thumbnail 64' "$DATA/rocket.jpg" "$WORK/t_run.png"
mkdir -p "$WORK/tin" && cp "$DATA/rocket.jpg" "$WORK/tin/"
run 0 run 'thumbnail 64' -i "$WORK/tin" -o "$WORK/tout" --format png --quiet
run 0 thumbnail 64 --shrink-on-load 0 "$DATA/rocket.jpg" "$WORK/t_whole.png"
run 0 run 'thumbnail 64 shrink_on_load=0' "$DATA/rocket.jpg" "$WORK/t_whole_run.png"
ok '"$GIP" info "$WORK/t_cmd.png" | grep -q "64x43, 3 channels"' "t_cmd.png is not a 64x43 RGB PNG"
ok 'cmp -s "$WORK/t_cmd.png" "$WORK/t_run.png"' "gip thumbnail and gip run 'thumbnail' differ"
ok 'cmp -s "$WORK/t_cmd.png" "$WORK/tout/rocket.png"' "the batch's thumbnail differs"
ok 'cmp -s "$WORK/t_whole.png" "$WORK/t_whole_run.png"' "shrink_on_load=0 differs between paths"
ok '! cmp -s "$WORK/t_cmd.png" "$WORK/t_whole.png"' "--shrink-on-load 0 changed nothing"

# ---- parse errors: exit 2, the position and a caret ------------------------------------------
expect 2 "at 10: gaussian: ksize must be" run 'gaussian 14 | invert' "$DATA/astronaut.png" "$WORK/x.png"
expect 2 "at 15: unknown step 'sobl'" run 'gaussian 15 | sobl' "$DATA/astronaut.png" "$WORK/x.png"
ok 'grep -q "^ *\^$" "$WORK/stderr"' "no caret line under the parse error"
expect 2 "at 14: expected a step name" run 'gaussian 15 |' "$DATA/astronaut.png" "$WORK/x.png"
expect 2 "unterminated quote" run "map 'out = 255 - in" "$DATA/astronaut.png" "$WORK/x.png"
# numbers are decimal: no hex floats in arguments or expressions
expect 2 "sigma" run 'gaussian 3 sigma=0x1p1' "$DATA/astronaut.png" "$WORK/x.png"
expect 2 "kernel" run "filter '0x1p-2,0x1p-2;0x1p-2,0x1p-2'" "$DATA/astronaut.png" "$WORK/x.png"
expect 2 "not a number" run "map 'out = in * 0x1p0'" "$DATA/astronaut.png" "$WORK/x.png"
absent "$WORK/x.png"
expect 2 "needs both -i" run invert -i "$DATA"
expect 2 "applies to batches" run invert --jobs 2 "$DATA/astronaut.png" "$WORK/x.png"
expect 1 "astronaut" run invert "$WORK/nonexistent/astronaut.png" "$WORK/x.png"

# ---- a batch folder with bad files -------------------------------------------------------------
mkdir -p "$WORK/in"
for f in astronaut chelsea coffee brick; do cp "$DATA/$f.png" "$WORK/in/"; done
cp "$DATA/rocket.jpg" "$WORK/in/"
printf 'not an image at all' >"$WORK/in/corrupt.jpg"
head -c 3000 "$DATA/rocket.jpg" >"$WORK/in/truncated.jpg"
run 1 run 'gaussian 5 | invert' -i "$WORK/in" -o "$WORK/out" --jobs 2
ok 'grep -q "corrupt.jpg" "$WORK/stderr"' "the corrupt file is not reported"
ok 'grep -q "truncated.jpg" "$WORK/stderr"' "the truncated file is not reported"
ok 'grep -q "5 written, 2 failed" "$WORK/stdout"' "summary does not say 5 written, 2 failed"
ok 'grep -q "decode" "$WORK/stdout" && grep -q "encode" "$WORK/stdout"' "summary lacks stage times"
for f in astronaut chelsea coffee brick; do
    ok '[ -f "$WORK/out/$f.png" ]' "out/$f.png missing"
done
ok '[ -f "$WORK/out/rocket.jpg" ]' "out/rocket.jpg missing"
ok '[ ! -e "$WORK/out/corrupt.jpg" ] && [ ! -e "$WORK/out/truncated.jpg" ]' "outputs of failed files"

# existing outputs: skipped unless --overwrite
ls -i "$WORK/out/astronaut.png" >"$WORK/inode1"
run 1 run 'gaussian 5 | invert' -i "$WORK/in" -o "$WORK/out" --quiet
ok 'grep -q "skipped.*astronaut.png" "$WORK/stderr"' "an existing output was not reported as skipped"
ls -i "$WORK/out/astronaut.png" >"$WORK/inode2"
ok 'cmp -s "$WORK/inode1" "$WORK/inode2"' "an existing output was replaced without --overwrite"
run 0 run 'gaussian 5 | invert' -i "$WORK/in/*.png" -o "$WORK/out" --overwrite --format png
ls -i "$WORK/out/astronaut.png" >"$WORK/inode2"
ok '! cmp -s "$WORK/inode1" "$WORK/inode2"' "--overwrite did not replace the output"
run 0 run 'invert' -i "$WORK/in/[a-c]*.png" -o "$WORK/out2" --format jpg --quality 80
ok '[ -f "$WORK/out2/astronaut.jpg" ] && [ -f "$WORK/out2/coffee.jpg" ]' "glob batch outputs missing"
# -o creates every missing folder, as mkdir -p
run 0 run 'invert' -i "$WORK/in/[a-b]*.png" -o "$WORK/deep/er/still" --quiet
ok '[ -f "$WORK/deep/er/still/astronaut.png" ] && [ -f "$WORK/deep/er/still/brick.png" ]' \
    "-o a/b/c: outputs missing (only one missing folder level created?)"
printf 'x' >"$WORK/afile"
expect 1 "cannot create output folder" run 'invert' -i "$WORK/in/a*.png" -o "$WORK/afile/sub"

# ---- --devices: a malformed list is a usage error (2), a device that is not there a runtime
# error (1); with a usable cuda:0 the batch runs on it
expect 2 "not a list of CUDA devices" run invert -i "$WORK/in/*.png" -o "$WORK/out3" --devices 0,x
expect 2 "listed twice" run invert -i "$WORK/in/*.png" -o "$WORK/out3" --devices 1,1
expect 2 "exclude each other" run invert -i "$WORK/in/*.png" -o "$WORK/out3" --devices 0 --one-device
expect 2 "cannot go with --device cpu" run invert -i "$WORK/in/*.png" -o "$WORK/out3" --devices 0 --device cpu
expect 2 "applies to batches" run invert "$DATA/astronaut.png" "$WORK/x.png" --devices 0
expect 1 "CUDA device 63 does not exist" run invert -i "$WORK/in/*.png" -o "$WORK/out3" --devices 63
if "$GIP" devices | grep -q "cuda:0 .*, usable$"; then
    run 0 run invert -i "$WORK/in/*.png" -o "$WORK/out3" --devices 0
    ok '[ -f "$WORK/out3/astronaut.png" ] && [ -f "$WORK/out3/brick.png" ]' "--devices 0: outputs missing"
else
    echo "  no usable cuda:0: the --devices run itself is skipped"
fi

# ---- killed mid-batch: only complete files, no temporaries -----------------------------------
mkdir -p "$WORK/many"
i=0
while [ $i -lt 40 ]; do
    cp "$DATA/astronaut.png" "$WORK/many/img$i.png"
    i=$((i + 1))
done
"$GIP" run 'gaussian 31 | gaussian 31 | invert' -i "$WORK/many" -o "$WORK/killed" --jobs 2 \
    --quiet --device cpu >/dev/null 2>&1 &
pid=$!
# wait for the first outputs, then kill while the batch is still writing
n=0
tries=0
while [ "$n" -lt 3 ] && [ $tries -lt 600 ]; do
    sleep 0.05
    n=$(ls "$WORK/killed" 2>/dev/null | wc -l)
    tries=$((tries + 1))
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
written=$(ls "$WORK/killed" | wc -l)
ok '[ "$written" -ge 3 ] && [ "$written" -lt 40 ]' "kill did not land mid-batch ($written outputs)"
ok '[ -z "$(ls -a "$WORK/killed" | grep -v "^img[0-9]*\.png$" | grep -v "^\.\.*$")" ]' \
    "the output folder holds other files (temporaries) after the kill: $(ls -a "$WORK/killed" | tr '\n' ' ')"
for f in "$WORK/killed"/*; do
    ok '"$GIP" info "$f" | grep -q "512x512, 3 channels"' "$f is not a complete image after the kill"
    ok '"$GIP" convert "$f" "$WORK/check.ppm" 2>/dev/null' "$f does not decode after the kill"
done
# the rerun completes the rest without touching the finished ones
run 0 run 'gaussian 31 | gaussian 31 | invert' -i "$WORK/many" -o "$WORK/killed" --quiet
ok '[ "$(ls "$WORK/killed" | wc -l)" -eq 40 ]' "the rerun did not complete the batch"

echo "pipeline_test: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
