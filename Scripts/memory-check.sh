#!/usr/bin/env bash
# Peak memory of `pushattach prepare` (not a timed test; prints figures):
#   1. one small JPEG served at 10,000 distinct loopback URLs: peak RSS must stay under 200 MB;
#   2. endless bodies with no Content-Length, cut at the byte cap: peak RSS under 100 MB.
#   3. growth: the same with COUNT/10 images first; peak RSS may grow by at most 1,000 bytes per
#      extra item (what a run keeps per item is the dedupe table's URL -> journal span, ~150 B).
# Peak RSS is the child's own VmHWM, printed when PUSHATTACH_REPORT_PEAK_RSS=1.
# Usage: Scripts/memory-check.sh [COUNT]   (PUSHATTACH=path/to/binary to test another build)
#
# Figures (release build, Debian 12, 2 shared cores, 2026-11-30), peak RSS by list length:
#   build                                         1,000    4,000   10,000   per extra item
#   d9a933b (before)                              47 MB    65 MB    97 MB   ~5.6 KB
#   0c823c6 manifest.json streamed from journal   43 MB    47 MB    55 MB   ~1.3 KB
#   8d67b82 dedupe table keeps journal spans      43 MB    43 MB    45 MB   ~0.3 KB
# The growth was (1) Manifest.finalize decoding the whole journal into a Document and encoding
# it at once (JSONEncoder's intermediate tree, ~4.5 KB per entry), and (2) the dedupe table
# holding every item's full ManifestEntry (~1 KB). Endless bodies: 50 MB (zeros) and 67 MB
# (JPEG start), unchanged.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${PUSHATTACH:-$root/.build/release/pushattach}"
count="${1:-10000}"
work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
# The interpreter itself, not a version-manager shim, so that killing $server_pid stops the server.
python="$(python3 -c 'import sys; print(sys.executable)')"

cat >"$work/server.py" <<'PY'
import http.server, sys
image = open(sys.argv[1], "rb").read()
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass
    def do_GET(self):
        if self.path.startswith("/endless"):
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Connection", "close")
            self.end_headers()
            # /endless-jpeg: a JPEG start, then zeros forever; /endless-zeros: zeros only.
            chunk = (image[:4] if "jpeg" in self.path else b"") + bytes(65536 - (4 if "jpeg" in self.path else 0))
            try:
                self.wfile.write(chunk)
                chunk = bytes(65536)
                while True: self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError): return
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(image)))
        self.end_headers()
        self.wfile.write(image)
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
PY
"$python" "$work/server.py" "$root/TestImages/small-320x240.jpg" >"$work/port" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$work/port")"

peak() { grep -o 'peak_rss_bytes=[0-9]*' "$1" | tail -1 | cut -d= -f2; }
mb() { echo "$(( $1 / 1000000 ))"; }
fail=0

# 1. COUNT distinct URLs of one small image.
seq 1 "$count" | sed "s|^|$base/img/|; s|$|.jpg|" >"$work/list.txt"
start=$(date +%s)
status=0
PUSHATTACH_REPORT_PEAK_RSS=1 "$bin" prepare "$work/list.txt" --container "$work/out" --allow-private-networks \
    >/dev/null 2>"$work/run1.log" || status=$?
elapsed=$(( $(date +%s) - start ))
rss=$(peak "$work/run1.log")
prepared=$(grep -o '[0-9]* prepared' "$work/run1.log" | tail -1)
echo "memory-check: $count small images: exit $status, $prepared, ${elapsed}s, peak RSS $(mb "$rss") MB ($rss bytes; limit 200 MB)"
{ [ "$status" = 0 ] && [ "$rss" -lt 200000000 ]; } || fail=1

# 3. Growth per item: COUNT/10 images, compared with the COUNT run above.
small=$(( count / 10 ))
if [ "$small" -ge 100 ]; then
    seq 1 "$small" | sed "s|^|$base/img/|; s|$|.jpg|" >"$work/small.txt"
    PUSHATTACH_REPORT_PEAK_RSS=1 "$bin" prepare "$work/small.txt" --container "$work/out-small" \
        --allow-private-networks >/dev/null 2>"$work/run-small.log" || true
    rss_small=$(peak "$work/run-small.log")
    per_item=$(( (rss - rss_small) / (count - small) ))
    echo "memory-check: growth from $small to $count items: $(( (rss - rss_small) / 1000 )) kB, ${per_item} bytes per item (limit 1000)"
    [ "$per_item" -le 1000 ] || fail=1
fi

# 2. Endless bodies, cut at the cap: zeros (no known type: the image cap, 10 MB) and a JPEG
#    start then zeros (the image download cap, 32 MB).
for kind in zeros jpeg; do
    echo "$base/endless-$kind" >"$work/endless.txt"
    status=0
    PUSHATTACH_REPORT_PEAK_RSS=1 "$bin" prepare "$work/endless.txt" --container "$work/out-$kind" \
        --allow-private-networks --retries 0 >/dev/null 2>"$work/run-$kind.log" || status=$?
    rss=$(peak "$work/run-$kind.log")
    reason=$(grep -o 'sent more than the [0-9]*-byte cap' "$work/run-$kind.log" | head -1 || true)
    echo "memory-check: endless body ($kind): exit $status (${reason:-no cap message}), peak RSS $(mb "$rss") MB ($rss bytes; limit 100 MB)"
    { [ "$status" = 1 ] && [ -n "$reason" ] && [ "$rss" -lt 100000000 ]; } || fail=1
done

if [ "$fail" = 0 ]; then echo "memory-check: OK"; else echo "memory-check: FAILED"; fi
exit "$fail"
