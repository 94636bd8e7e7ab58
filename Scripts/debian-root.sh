# Sourced by Scripts/deb-check and Scripts/make-image (not run on its own): a minimal Debian 12
# root with the .deb installed, entered with chroot, and the check that a `pushattach serve`
# answers. Callers run as root, in a mount and PID namespace of their own (enter_namespace), so
# the root's mounts and every process started here go when the caller ends.
#
# Globals the callers set: root (the repository), cache (.build/...: the root tarball, apt's lists
# and downloaded packages), R (where the root goes), work (logs and scratch files), python.

debian_suite=bookworm

fail() { echo "$(basename "$0"): $*" >&2; exit 1; }
step() { echo "$(basename "$0"): [$((SECONDS - started)) s] $*"; }

# Run "$0 ARGS" again in a mount and PID namespace of its own, unless it already runs in one.
enter_namespace() {
    [[ "$(id -u)" == 0 ]] || fail "needs root (mmdebstrap, chroot and mounts); run it as root"
    if [[ "${PUSHATTACH_ROOT_NAMESPACE:-}" != 1 ]]; then
        exec env PUSHATTACH_ROOT_NAMESPACE=1 unshare --mount --pid --fork --mount-proc "$0" "$@"
    fi
    # As PID 1 of the namespace the shell gets no default action for signals: give them one.
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

# The minimal root, once: mmdebstrap --variant=apt (the essential packages and apt) from Debian's
# mirror, kept as $cache/bookworm.tar. Then a fresh copy of it in $R, a tmpfs (quick to fill, and
# gone with the namespace), with /proc, /sys, the host's resolver and apt's lists and downloads
# kept in $cache between runs.
make_root() {
    local tarball="$cache/$debian_suite.tar"
    mkdir -p "$cache/apt-lists/partial" "$cache/apt-archives/partial"
    if [[ ! -s "$tarball" ]]; then
        step "making a minimal $debian_suite root with mmdebstrap (once; kept as $tarball)"
        mmdebstrap --quiet --variant=apt --aptopt='Acquire::Languages "none"' "$debian_suite" \
            "$cache/$debian_suite.partial.tar" \
            "deb http://deb.debian.org/debian $debian_suite main" \
            "deb http://deb.debian.org/debian $debian_suite-updates main" \
            "deb http://deb.debian.org/debian-security $debian_suite-security main"
        mv "$cache/$debian_suite.partial.tar" "$tarball"
    fi
    step "a fresh copy of $tarball in $R (a tmpfs)"
    rm -rf "$R"
    mkdir -p "$R"
    mount -t tmpfs -o size=2g,mode=0755 pushattach-root "$R"
    tar -C "$R" --numeric-owner -xf "$tarball"
    mount -t proc proc "$R/proc"
    mount -t sysfs -o ro sysfs "$R/sys"
    mount --bind "$cache/apt-lists" "$R/var/lib/apt/lists"
    mount --bind "$cache/apt-archives" "$R/var/cache/apt/archives"
    cp /etc/resolv.conf "$R/etc/resolv.conf"
}

# What make_root mounted and copied in, undone: the root as an image would carry it.
unmount_root() {
    umount "$R/var/cache/apt/archives" "$R/var/lib/apt/lists" "$R/sys" "$R/proc"
    rm -f "$R/etc/resolv.conf"
}

# A command in the root, with a clean environment.
in_root() {
    chroot "$R" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# A path in the root, as the host sees it.
at() { echo "$R$1"; }

# apt-get install --no-install-recommends of the .deb: what its Depends: line brings, nothing more.
install_deb() {
    local deb="$1" name
    name="$(basename "$deb")"
    cp "$deb" "$(at /tmp/)"
    chmod 0644 "$(at "/tmp/$name")"
    step "apt-get update"
    in_root apt-get update -qq
    step "apt-get install --no-install-recommends ./$name"
    in_root apt-get install -y -qq --no-install-recommends "/tmp/$name" >"$work/apt.log" 2>&1 ||
        { cat "$work/apt.log" >&2; fail "apt-get install failed (above)"; }
    rm -f "$(at "/tmp/$name")"
    in_root dpkg-query -W -f='${Status}\n' pushattach | grep -qx 'install ok installed' || fail "pushattach is not installed"
}

# An HTTP server on 127.0.0.1 (a free port) over TestImages/, outside the root: $origin, $http_pid.
# The chroot and a container on the host's network reach it.
start_origin() {
    local line port
    rm -f "$work/http.out"
    mkfifo "$work/http.out"
    "$python" -u -m http.server 0 --bind 127.0.0.1 --directory "$root/TestImages" >"$work/http.out" 2>"$work/http.log" &
    http_pid=$!
    exec {http_out}<"$work/http.out"
    read -r -t 60 line <&"$http_out" || fail "the loopback HTTP server did not start: $(cat "$work/http.log")"
    port="$(sed -n 's/^Serving HTTP on 127\.0\.0\.1 port \([0-9]*\) .*/\1/p' <<<"$line")"
    [[ -n "$port" ]] || fail "the loopback HTTP server says '$line'"
    origin="http://127.0.0.1:$port"
}

# What check_serve shows, said in one line.
served_summary="/healthz 200, a signed link 200 image/jpeg (accepted by verify), a forged one 403, SIGTERM: exit 0"

# Every process started here, stopped by its PID (the caller's EXIT trap).
stop_started() {
    local pid
    for pid in $serve_pid $serve_log_pid $http_pid; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    serve_pid="" serve_log_pid="" http_pid=""
}

# check_serve COMMAND...: start a `pushattach serve --listen 127.0.0.1:0 ...` (COMMAND, its stderr
# read here), then: /healthz answers 200; a link to $origin/lossy-320x240.webp signed by the
# caller's make_link answers 200 with a JPEG the caller's verify_served accepts; the same link with
# a changed signature answers 403; SIGTERM drains and exits 0.
check_serve() {
    local line port health link answer signature other forged status=0
    rm -f "$work/serve.err"
    mkfifo "$work/serve.err"
    "$@" 2>"$work/serve.err" &
    serve_pid=$!
    exec {serve_err}<"$work/serve.err"
    read -r -t 120 line <&"$serve_err" || fail "serve did not start ($*)"
    port="$(sed -n 's|^pushattach serve: listening on http://127\.0\.0\.1:\([0-9]*\) .*|\1|p' <<<"$line")"
    [[ -n "$port" ]] || fail "serve says '$line'"
    cat <&"$serve_err" >"$work/serve.log" &
    serve_log_pid=$!

    health="$(curl -sS -m 30 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz")"
    [[ "$health" == 200 ]] || fail "/healthz answered $health"
    link="$(make_link "$origin/lossy-320x240.webp" "http://127.0.0.1:$port")"
    answer="$(curl -sS -m 60 -o "$work/served.jpg" -w '%{http_code} %{content_type}' "$link")"
    [[ "$answer" == "200 image/jpeg" ]] || fail "the signed link $link answered '$answer': $(head -c 300 "$work/served.jpg")"
    verify_served "$work/served.jpg" >"$work/served.txt" || { cat "$work/served.txt" >&2; fail "the served file is not accepted"; }
    signature="$(sed -n 's|.*/a/\([^/]*\)/.*|\1|p' <<<"$link")"
    [[ "${signature:0:1}" == A ]] && other=B || other=A
    forged="$(curl -sS -m 30 -o /dev/null -w '%{http_code}' "${link/\/a\/$signature\//\/a\/$other${signature:1}\/}")"
    [[ "$forged" == 403 ]] || fail "a link with a changed signature answered $forged, not 403"

    kill -TERM "$serve_pid"
    wait "$serve_pid" || status=$?
    serve_pid=""
    wait "$serve_log_pid" || true
    serve_log_pid=""
    [[ "$status" == 0 ]] || fail "serve exited $status after SIGTERM: $(cat "$work/serve.log")"
}
