#!/usr/bin/env bash
# Serves a 1x1 GIF at every /img/... path and 404 elsewhere, with Debian's nginx (nginx-light), on
# 127.0.0.1: the fast loopback server of memory-check's million-line rows (Python's http.server
# does a few hundred requests a second; nginx does thousands).
#   Scripts/memcheck/nginx-tiny.sh DIR   runs nginx in the foreground with its files in DIR and
#                                         prints "127.0.0.1:PORT" once it listens. nginx's worker
#                                         runs as 'nobody' when started as root: DIR's parents must
#                                         let it pass (x), or every request is a 403.
set -euo pipefail
dir="$1"
mkdir -p "$dir/root" "$dir/tmp"
chmod 755 "$dir" "$dir/root"
# GIF89a, 1x1, one black pixel: 35 bytes.
printf 'GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;' >"$dir/root/tiny.gif"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
    uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$port;
        root $dir/root;
        location /img/ { default_type image/gif; rewrite ^ /tiny.gif break; }
        location / { return 404; }
    }
}
CONF
nginx -c "$dir/nginx.conf" -e "$dir/error.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT TERM INT
for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break
    sleep 0.05
done
echo "127.0.0.1:$port"
wait $pid
