#!/usr/bin/env bash
# Builds the Examples package, from a copy outside the repository that depends on this checkout
# by path, and runs each example against a loopback HTTP server over
# TestImages/, checking its exit status and a key line of its output. Called by `make test`.
#
#     Examples/run-examples.sh          # from anywhere; SWIFT=… and EXAMPLES_SCRATCH=… override
#
# Exit status: 0 when every check passed, 1 when one failed (its output is printed), 2 when
# the build or the file server failed. The last line is a one-line summary.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
swift=${SWIFT:-swift}
scratch=${EXAMPLES_SCRATCH:-$root/.build/examples}
work=$(mktemp -d "${TMPDIR:-/tmp}/pushattach-examples.XXXXXX")
started=$SECONDS
server_pid=""
endpoint_pid=""
origin_pid=""

cleanup() {
    for pid in "$endpoint_pid" "$server_pid" "$origin_pid"; do
        if [ -n "$pid" ]; then
            kill "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
        fi
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Waits up to 30 s for a line matching $2 in file $1; prints the first match.
wait_for_line() {
    local i
    for i in $(seq 1 300); do
        if grep -m1 -E "$2" "$1" 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    return 1
}

# Waits up to 30 s for process $1 to exit; returns its exit status, or 124 when it did not.
wait_exit() {
    local i
    for i in $(seq 1 300); do
        if ! kill -0 "$1" 2>/dev/null; then
            wait "$1"
            return $?
        fi
        sleep 0.1
    done
    return 124
}

# --- Build ---------------------------------------------------------------------------------
# From a copy outside the repository, as a user's own package would be: the same Package.swift
# with the dependency's path pointing at this checkout, and the same Sources/. Only the public
# API of `PushAttach` is visible from there (`package` declarations are not).
outside="$work/PushAttachExamples"
mkdir -p "$outside"
cp -R Examples/Sources "$outside/Sources"
sed "s|path: \"\.\.\"|path: \"$root\"|" Examples/Package.swift >"$outside/Package.swift"
if ! grep -qF "path: \"$root\"" "$outside/Package.swift"; then
    echo "examples: FAILED: Examples/Package.swift does not depend on \"..\" by path"
    exit 2
fi
echo "examples: building $outside against $root (scratch ${scratch#"$root"/})"
if ! "$swift" build --package-path "$outside" --scratch-path "$scratch" >"$work/build.log" 2>&1; then
    tail -n 40 "$work/build.log"
    echo "examples: FAILED to build in $((SECONDS - started)) s"
    exit 2
fi
bin=$("$swift" build --package-path "$outside" --scratch-path "$scratch" --show-bin-path)
echo "examples: built in $((SECONDS - started)) s"

# --- The media server: loopback, a free port chosen by the kernel ---------------------------
(cd TestImages && exec python3 -u -m http.server 0 --bind 127.0.0.1) >"$work/server.log" 2>&1 &
server_pid=$!
port=$(wait_for_line "$work/server.log" 'port [0-9]+' | sed -E 's/.*port ([0-9]+).*/\1/')
if [ -z "$port" ]; then
    cat "$work/server.log"
    echo "examples: FAILED: the file server over TestImages/ did not start"
    exit 2
fi
media="http://127.0.0.1:$port"

passed=0
failed=0
failures=()

# check NAME STATUS PATTERN -- COMMAND...: runs COMMAND, expects exit STATUS and a line of its
# output matching the extended regular expression PATTERN.
check() {
    local name=$1 expected=$2 pattern=$3
    shift 4
    local out="$work/$name.out" status
    "$@" >"$out" 2>&1
    status=$?
    if [ "$status" -eq "$expected" ] && grep -qE "$pattern" "$out"; then
        record ok "$name" "$(grep -m1 -E "$pattern" "$out")"
    else
        record fail "$name" "exit $status (expected $expected), no line matching /$pattern/ or wrong status:"
        sed 's/^/      /' "$out"
    fi
}

# Counts one check and prints its line: record ok|fail NAME MESSAGE.
record() {
    if [ "$1" = ok ]; then
        passed=$((passed + 1))
        echo "ok    $2: $3"
    else
        failed=$((failed + 1))
        failures+=("$2")
        echo "FAIL  $2: $3"
    fi
}

# --- one-url: the default refuses loopback; the flag allows it -------------------------------
check one-url-default-refuses 1 '^failed blocked: .*private networks are not allowed' -- \
    "$bin/one-url" "$media/lossy-320x240.webp" "$work/one"
check one-url 0 '^prepared .*/Images/[0-9A-F-]{36}-lossy-320x240\.jpg public\.jpeg 320×240' -- \
    "$bin/one-url" --allow-private-networks --type-hint image "$media/lossy-320x240.webp" "$work/one"

# --- batch-progress: failures are results, the batch goes on --------------------------------
check batch-progress 1 '^prepared 4 of 6, 2 failed' -- \
    "$bin/batch-progress" --allow-private-networks "$work/batch" \
    "$media/small-320x240.jpg" "$media/opaque-300x200.png" "$media/alpha-256x256.png" \
    "$media/animated-120x90.gif" "$media/not-media.txt" "$media/missing.jpg"

# --- batch-manifest: AttachmentBatch writes manifest.json; resumed, it downloads nothing -----
check batch-manifest 0 '^resumed: 3 skipped, 0 prepared, 0 failed' -- \
    "$bin/batch-manifest" --allow-private-networks "$work/manifest-batch" \
    "$media/small-320x240.jpg?batch=1" "$media/lossy-320x240.webp?batch=1" "$media/animated-120x90.gif?batch=1"
# The file server logged each download once: three for both runs together.
downloads=$(grep -c 'GET /[^ ]*?batch=1 ' "$work/server.log")
if [ "$downloads" -eq 3 ] && [ -f "$work/manifest-batch/manifest.json" ]; then
    record ok batch-manifest-downloads "3 downloads for the batch and its resume, manifest.json written"
else
    record fail batch-manifest-downloads "$downloads downloads (expected 3), or no manifest.json"
fi

# --- concurrent-requests: 20 calls at once on one preparer and one folder --------------------
twenty=()
for i in $(seq 1 20); do twenty+=("$media/photo-1600x1200.jpg?request=$i"); done
check concurrent-requests 0 '^prepared 20 of 20 concurrently' -- \
    "$bin/concurrent-requests" --allow-private-networks "$work/concurrent" "${twenty[@]}"

# --- replicas: four processes prepare 200 URLs each into one folder at once -----------------
# As replicas of a service on one volume: each process holds the folder shared, with a spool
# folder of its own; names are unique UUIDs and files appear whole, so nothing collides.
replica_pids=()
for k in 1 2 3 4; do
    urls=()
    for i in $(seq 1 200); do urls+=("$media/small-320x240.jpg?replica=$k&i=$i"); done
    "$bin/concurrent-requests" --allow-private-networks "$work/replicas" "${urls[@]}" >"$work/replica-$k.log" 2>&1 &
    replica_pids+=($!)
done
replica_failures=0
for pid in "${replica_pids[@]}"; do wait "$pid" || replica_failures=$((replica_failures + 1)); done
files=$(find "$work/replicas/Images" -type f | wc -l)
unique=$(find "$work/replicas/Images" -type f -printf '%f\n' | cut -c1-36 | sort -u | wc -l)
leftovers=$(find "$work/replicas" -maxdepth 1 -name '.spool*' | wc -l)
if [ "$replica_failures" -eq 0 ] && [ "$files" -eq 800 ] && [ "$unique" -eq 800 ] && [ "$leftovers" -eq 0 ]; then
    record ok replicas "4 processes x 200 URLs into one folder: $files files, $unique distinct UUIDs, no error, no spool left"
else
    record fail replicas "$replica_failures process(es) failed, $files files, $unique distinct UUIDs (expected 800), $leftovers spool folder(s) left"
    grep -h '^failed' "$work"/replica-*.log | head -5
fi

# --- verify-folder: what the batch wrote is accepted; a mixed folder is not ----------------
check verify-prepared 0 '^4 files: 4 accepted, 0 transcode, 0 rejected' -- \
    "$bin/verify-folder" "$work/batch"
mkdir -p "$work/mixed"
cp TestImages/lossy-320x240.webp TestImages/truncated.jpg TestImages/small-320x240.jpg "$work/mixed/"
check verify-mixed 1 '^3 files: 1 accepted, 1 transcode, 1 rejected' -- \
    "$bin/verify-folder" "$work/mixed"

# --- thumbnail: a 256 px JPEG decoded at a reduced scale ------------------------------------
check thumbnail 0 '^thumbnail 256×192 jpeg [0-9]+ bytes' -- \
    "$bin/thumbnail" --max-side 256 TestImages/photo-1600x1200.jpg "$work/thumb.jpg"

# --- http-endpoint: four requests, then it exits -----------------------------------------
"$bin/http-endpoint" --allow-private-networks --requests 4 "$work/endpoint" >"$work/endpoint.log" 2>&1 &
endpoint_pid=$!
endpoint_port=$(wait_for_line "$work/endpoint.log" '^listening on 127\.0\.0\.1:[0-9]+' |
    sed -E 's/.*127\.0\.0\.1:([0-9]+).*/\1/')
endpoint="http://127.0.0.1:${endpoint_port:-0}/prepare"

# The body and status are joined on one line for the pattern: "STATUS BODY".
curl_json() {
    local body status
    body=$(curl -sS --max-time 60 -w '\n%{http_code}' "$@") || return 2
    status=${body##*$'\n'}
    echo "$status ${body%$'\n'*}"
}
if [ -n "$endpoint_port" ]; then
    check endpoint-get 0 '^200 \{"file":"Images/[0-9A-F-]{36}-lossy-320x240\.jpg","height":240,"typeHint":"public\.jpeg","width":320\}' -- \
        curl_json -G --data-urlencode "url=$media/lossy-320x240.webp" --data-urlencode typeHint=image "$endpoint"
    check endpoint-post-rejected 0 '^422 \{"error":"rejected","errorCode":101,' -- \
        curl_json -X POST -G --data-urlencode "url=$media/not-media.txt" "$endpoint"
    check endpoint-missing 0 '^404 \{"error":"not_found",.*HTTP 404' -- \
        curl_json -G --data-urlencode "url=$media/missing.jpg" "$endpoint"
    check endpoint-no-url 0 '^400 \{"error":"bad_request"' -- curl_json "$endpoint"
    # It served its four requests and exits by itself, with 0.
    wait_exit "$endpoint_pid"
    status=$?
    [ "$status" -ne 124 ] && endpoint_pid=""
    check endpoint-exit 0 '^served 4 requests' -- sh -c "cat '$work/endpoint.log'; exit $status"
else
    record fail http-endpoint "did not start listening:"
    sed 's/^/      /' "$work/endpoint.log"
fi

# --- extension-loader: PushAttachExtension alone, as an app's Notification Service Extension --
# An origin on loopback with what the extension meets: a JPEG at a URL without an extension, an
# HTML error page at .jpg, and a URL that answers only after the budget.
origin_py='
import http.server, sys, threading
jpeg = open(sys.argv[1], "rb").read()
page = b"<!DOCTYPE html><html><head><title>404</title></head><body>Not found</body></html>"
stopped = threading.Event()
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/img/slow.jpg":
            stopped.wait(60)  # a slow origin: answers a minute late (or never, once stopped)
        body, kind = {"/img/photo": (jpeg, "application/octet-stream"), "/img/slow.jpg": (jpeg, "image/jpeg"),
                      "/img/page.jpg": (page, "text/html")}.get(self.path, (b"no\n", "text/plain"))
        self.send_response(200 if body != b"no\n" else 404)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print("port", server.server_address[1], flush=True)
server.serve_forever()
'
python3 -u -c "$origin_py" TestImages/small-320x240.jpg >"$work/origin.log" 2>&1 &
origin_pid=$!
origin_port=$(wait_for_line "$work/origin.log" '^port [0-9]+' | sed -E 's/port ([0-9]+)/\1/')
if [ -n "$origin_port" ]; then
    origin="http://127.0.0.1:$origin_port"
    check extension-no-extension 0 '^file [0-9A-F-]{36}-photo\.jpg public\.jpeg in [0-9]+ ms$' -- \
        "$bin/extension-loader" "$work/extension/tmp" "$origin/img/photo"
    check extension-html 0 '^no file in [0-9]+ ms: not media: the bytes are an HTML page' -- \
        "$bin/extension-loader" "$work/extension/html" "$origin/img/page.jpg"
    check extension-slow 0 '^no file in [0-9]+ ms: not downloaded within the time budget of 2 s' -- \
        "$bin/extension-loader" --budget 2 "$work/extension/slow" "$origin/img/slow.jpg"
else
    record fail extension-loader "the loopback origin did not start:"
    sed 's/^/      /' "$work/origin.log"
fi

elapsed=$((SECONDS - started))
if [ "$failed" -eq 0 ]; then
    echo "examples: $passed passed, 0 failed in $elapsed s"
    exit 0
fi
echo "examples: $passed passed, $failed failed (${failures[*]}) in $elapsed s"
exit 1
