#!/usr/bin/env bash
# `make demo`: serve TestImages/ on a free loopback port, prepare demo/attachments.txt into a
# fresh container, print where the results are, and stop the server whatever happens.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${PUSHATTACH:-$root/.build/release/pushattach}"
out="${DEMO_OUT:-$root/.build/demo}"
work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
# The interpreter itself, not a version-manager shim, so that killing $server_pid stops the server.
python="$(python3 -c 'import sys; print(sys.executable)')"

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
"$python" -m http.server "$port" --bind 127.0.0.1 --directory "$root/TestImages" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
    "$python" -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break
    sleep 0.1
done
base="http://127.0.0.1:$port"
echo "demo: serving $root/TestImages at $base"

sed "s|{{BASE}}|$base|g" "$root/demo/attachments.txt" >"$work/attachments.txt"
rm -rf "$out"
status=0
"$bin" prepare "$work/attachments.txt" --container "$out" --allow-private-networks --thumbnail 256 --report || status=$?

echo
echo "demo: exit status $status (1 is expected: the list has bad items on purpose)"
echo "demo: container  $out"
echo "demo: manifest   $out/manifest.json"
echo "demo: files:"
(cd "$out" && find Images Audio Video Thumbnails -type f | sort | sed 's/^/  /')

# The same media on demand: `pushattach serve` prepares a signed link's source on first request
# (docs/SERVE.md). The two lines below are run as shown, against the loopback server above.
serve_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
serve_cache="$out-serve-cache"
rm -rf "$serve_cache"
export PUSHATTACH_SIGNING_KEY=demo-key
line1="$bin serve --cache $serve_cache --listen 127.0.0.1:$serve_port --allow-private-networks --access-log off &"
line2="curl -sI \"\$($bin link $base/lossy-320x240.webp --type image --base http://127.0.0.1:$serve_port)\""
echo
echo "demo: serve: a WebP answered as JPEG through a signed link. Run here as:"
echo "  export PUSHATTACH_SIGNING_KEY=demo-key"
echo "  $line1"
echo "  $line2"
"$bin" serve --cache "$serve_cache" --listen "127.0.0.1:$serve_port" --allow-private-networks --access-log off 2>"$work/serve.log" &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null || true; wait $serve_pid 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 50); do
    "$python" -c "import socket; socket.create_connection(('127.0.0.1', $serve_port), 0.2)" 2>/dev/null && break
    sleep 0.1
done
curl -sI "$("$bin" link "$base/lossy-320x240.webp" --type image --base "http://127.0.0.1:$serve_port")" | tr -d '\r' | sed 's/^/  /'
echo "demo: with your own server, drop --allow-private-networks and link any public image URL."
