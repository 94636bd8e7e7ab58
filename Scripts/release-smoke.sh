#!/usr/bin/env bash
# Release-build smoke test, run by `make test` after the unit tests: the optimiser can expose
# lifetime bugs that debug builds hide (a pointer outliving its array, say), so the shipped
# configuration verifies and prepares the fixtures once and the results are checked.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.build/release/pushattach"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail=0

# 1. verify: every fixture's verdict (what prepare does: a JPEG named .png is renamed, a 4000x3000
#    photo fitted to the long side, both "transcode").
expected="alpha-256x256.png accepted
alpha-lossless-256x256.webp transcode
animated-120x90.gif accepted
animated-120x90.webp transcode
gray-400x300.jpg accepted
jpeg-named.png transcode
large-4000x3000.jpg transcode
lossy-320x240.webp transcode
not-media.txt rejected
opaque-300x200.png accepted
opaque-alpha-200x150.png accepted
photo-1600x1200.jpg accepted
progressive-640x480.jpg accepted
small-320x240.jpg accepted
tone-1s.wav accepted
truncated.jpg rejected"
files=()
while read -r name _; do files+=("$root/TestImages/$name"); done <<<"$expected"
"$bin" verify --json "${files[@]}" >"$work/verify.jsonl" || true
actual="$(python3 -c '
import json, os, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    print(os.path.basename(o["path"]), o["verdict"])
' "$work/verify.jsonl")"
if [ "$actual" != "$expected" ]; then
    echo "release-smoke: verify verdicts differ from the expected ones:" >&2
    diff <(echo "$expected") <(echo "$actual") >&2 || true
    fail=1
fi

# 2. prepare the local fixtures, then verify every output file is accepted by iOS's rules.
status=0
"$bin" prepare "${files[@]}" --container "$work/c" --thumbnail 256 >"$work/prepare.out" 2>&1 || status=$?
if [ "$status" != 1 ]; then
    echo "release-smoke: prepare exited $status, expected 1 (some fixtures are bad on purpose)" >&2
    cat "$work/prepare.out" >&2
    fail=1
fi
prepared=$(python3 -c 'import json,sys; print(sum(e["status"] == "prepared" for e in json.load(open(sys.argv[1]))["entries"]))' "$work/c/manifest.json")
if [ "$prepared" != 14 ]; then
    echo "release-smoke: $prepared fixtures prepared, expected 14" >&2
    cat "$work/prepare.out" >&2
    fail=1
fi
if ! "$bin" verify "$work/c/Images" "$work/c/Audio" "$work/c/Thumbnails" >"$work/outputs.txt"; then
    echo "release-smoke: a prepared file is not accepted:" >&2
    grep -v '^accepted' "$work/outputs.txt" >&2 || true
    fail=1
fi
[ "$fail" = 0 ] && echo "release-smoke: release build verified and prepared the fixtures ($prepared prepared, outputs accepted)"
exit "$fail"
