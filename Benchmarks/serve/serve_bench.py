#!/usr/bin/env python3
"""`make serve-bench`: pushattach serve against thumbor (cold) and nginx (warm), in one run.

    Benchmarks/serve/serve_bench.py --pushattach .build/release/pushattach --photos ../shared/corpus/photos \
        [--rounds 3] [--concurrency 4] [--duration 10] [--json out.json]

Everything runs on 127.0.0.1 and is stopped by PID at the end:
- an nginx origin serving the photos (and, on a second port, the prepared files for the static limit);
- thumbor (PyPI) with no storage and no result storage, so every request is cold, configured to do
  what serve does: fit in 2048 (never up), JPEG quality 85, EXIF orientation respected;
- pushattach serve with a fresh cache per cold round.

Cold: each round asks for every photo once, CONCURRENCY at a time (curl --parallel), through a
fresh cache (ours) or thumbor; requests/s = photos * rounds / wall time; p50 and p99 over every
request. Warm: wrk -t2 -cCONNECTIONS over the photos' links once they are cached, against nginx
serving the same bytes as static files, in --warm-rounds alternated rounds (median of each). Memory: serve's resident set while wrk holds 1,000
connections open on warm links (sampled every 50 ms; VmHWM at the end). Trickle: 1,000 connections
from 127.0.0.2 each sending a byte of a request head every 7 s (reconnecting when cut off), while
/healthz is asked from 127.0.0.1 every 100 ms: how long it takes (`--only trickle` runs this alone,
without nginx, thumbor or photos).
Python 3 standard library only (plus the tools it runs: nginx, wrk, curl, thumbor).
"""
import argparse
import asyncio
import base64
import hashlib
import hmac
import json
import os
import platform
import re
import selectors
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

KEY = b"serve-bench signing key"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, seconds=30):
    end = time.time() + seconds
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"serve-bench: nothing listens on 127.0.0.1:{port} after {seconds} s")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def link(url):
    """The signed serve path of `url`, as AttachmentLink.path(signedBy:) makes it."""
    part = "/" + b64url(url.encode()) + "?type=image"
    return "/a/" + b64url(hmac.new(KEY, part.encode(), hashlib.sha256).digest()) + part


def start_nginx(work, photos_root, static_root):
    origin, static = free_port(), free_port()
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""worker_processes 2;
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    sendfile on; tcp_nopush on;
    keepalive_requests 1000000;
    client_body_temp_path {work}/tmp; proxy_temp_path {work}/tmp; fastcgi_temp_path {work}/tmp;
    uwsgi_temp_path {work}/tmp; scgi_temp_path {work}/tmp;
    types {{ image/jpeg jpg; }}
    server {{ listen 127.0.0.1:{origin}; access_log {work}/origin-access.log; location /photos/ {{ alias {photos_root}/; }} }}
    server {{ listen 127.0.0.1:{static}; location /static/ {{ alias {static_root}/; }} }}
}}
""")
    os.makedirs(os.path.join(work, "tmp"), exist_ok=True)
    process = subprocess.Popen(["nginx", "-c", conf, "-e", f"{work}/nginx-error.log"])
    wait_port(origin)
    wait_port(static)
    return process, origin, static


def start_thumbor(work):
    port = free_port()
    conf = os.path.join(work, "thumbor.conf")
    with open(conf, "w") as f:
        f.write("""STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
QUALITY = 85
RESPECT_ORIENTATION = True
ALLOW_UNSAFE_URL = True
AUTO_WEBP = False
PRESERVE_EXIF_INFO = False
MAX_AGE = 86400
HTTP_LOADER_REQUEST_TIMEOUT = 60
""")
    process = subprocess.Popen(
        ["thumbor", "-p", str(port), "-i", "127.0.0.1", "-c", conf, "--processes", str(os.cpu_count() or 1), "-l", "error"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "thumbor.log"), "w"), start_new_session=True)
    wait_port(port, 60)
    return process, port


def start_serve(binary, work, cache, port=None):
    port = port or free_port()
    env = dict(os.environ, PUSHATTACH_SIGNING_KEY=KEY.decode())
    process = subprocess.Popen(
        [binary, "serve", "--cache", cache, "--listen", f"127.0.0.1:{port}", "--allow-private-networks",
         "--access-log", "off", "--deadline", "60"],
        env=env, stderr=open(os.path.join(work, "serve.log"), "a"))
    wait_port(port)
    return process, port


def stop(process):
    """Stops `process`, and its children when it leads a session of its own (thumbor's forks)."""
    if not process:
        return
    group = os.getpgid(process.pid) == process.pid if process.poll() is None else False
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM) if group else process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL) if group else process.kill()
            process.wait()
    if group:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def curl_round(urls, concurrency):
    """Every URL once, `concurrency` at a time: (wall seconds, [(status, seconds)])."""
    args = ["curl", "-s", "-Z", "--parallel-max", str(concurrency), "--parallel-immediate"]
    for url in urls:
        args += ["-o", "/dev/null", "-w", "%{http_code} %{time_total}\\n", url]
    start = time.monotonic()
    out = subprocess.run(args, capture_output=True, text=True, check=False).stdout
    wall = time.monotonic() - start
    rows = [(int(a), float(b)) for a, b in (line.split() for line in out.splitlines() if line.strip())]
    return wall, rows


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def cold(urls, rounds, concurrency, before_round=None):
    walls, times, statuses = [], [], []
    for _ in range(rounds):
        if before_round:
            before_round()
        wall, rows = curl_round(urls, concurrency)
        walls.append(wall)
        times += [t for _, t in rows]
        statuses += [s for s, _ in rows]
    return {
        "requests": len(times), "ok": sum(1 for s in statuses if s == 200),
        "rps": round(len(times) / sum(walls), 2),
        "p50_ms": round(percentile(times, 50) * 1000, 1), "p99_ms": round(percentile(times, 99) * 1000, 1),
    }


def wrk(base, paths, work, connections, duration, name):
    script = os.path.join(work, f"{name}.lua")
    with open(script, "w") as f:
        f.write("local paths = {" + ",".join(json.dumps(p) for p in paths) + "}\n")
        f.write("local i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format('GET', paths[i])\nend\n")
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{duration}s", "--latency", "-s", script, base],
        capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)

    def latency(label):
        m = re.search(rf"^\s+{label}%\s+([\d.]+)(us|ms|s)", out, re.M)
        value, unit = float(m.group(1)), m.group(2)
        return round(value / 1000 if unit == "us" else value * 1000 if unit == "s" else value, 2)

    return {"rps": rps, "p50_ms": latency("50"), "p99_ms": latency("99"),
            "non_2xx": int(errors.group(1)) if errors else 0,
            "socket_errors": socket_errors.group(1).strip() if socket_errors else "none"}


def rss_while(pid, action):
    """Runs `action()` while sampling pid's VmRSS every 50 ms; (result, peak sampled RSS, VmHWM) in bytes."""
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            try:
                with open(f"/proc/{pid}/status") as f:
                    for line in f:
                        if line.startswith("VmRSS:"):
                            peak[0] = max(peak[0], int(line.split()[1]) * 1024)
            except OSError:
                return
            time.sleep(0.05)

    thread = threading.Thread(target=sample)
    thread.start()
    try:
        result = action()
    finally:
        done.set()
        thread.join()
    with open(f"/proc/{pid}/status") as f:
        hwm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))
    return result, peak[0], hwm


async def one_request(port, path):
    start = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    data = await reader.read()
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), hashlib.sha256(body).hexdigest(), time.monotonic() - start


def herd(port, path, count):
    """`count` requests for one path at once (asyncio, one connection each): statuses, distinct bodies, times."""
    async def run():
        return await asyncio.gather(*(one_request(port, path) for _ in range(count)), return_exceptions=True)

    answers = asyncio.run(run())
    ok = [a for a in answers if not isinstance(a, BaseException)]
    times = [t for _, _, t in ok]
    return {
        "requests": count, "answered": len(ok), "status_200": sum(1 for s, _, _ in ok if s == 200),
        "distinct_bodies": len({h for _, h, _ in ok}),
        "p50_ms": round(percentile(times, 50) * 1000, 1) if times else None,
        "p99_ms": round(percentile(times, 99) * 1000, 1) if times else None,
    }


def jpeg_pixels(path):
    """Width x height from a JPEG's first SOF marker (0 when none is found)."""
    with open(path, "rb") as f:
        data = f.read()
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker, length = data[i + 1], int.from_bytes(data[i + 2:i + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2):
            return int.from_bytes(data[i + 5:i + 7], "big") * int.from_bytes(data[i + 7:i + 9], "big")
        i += 2 + length
    return 0


def load_average():
    return os.getloadavg()[0]


def trickle(port, count=1000, seconds=30, every=7.0, source="127.0.0.2"):
    """`count` connections from `source`, each sending one byte of a request head every `every`
    seconds (never idle for long, never done), reconnecting when the server cuts one off, while
    /healthz is asked from 127.0.0.1 every 100 ms: the probes' times, and how often the
    tricklers were cut off (the header timeout) or refused (the connection limits)."""
    head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"t" * 400 + b"\r\n\r\n"
    stop_at = time.monotonic() + seconds
    state = {"cut": 0, "refused": 0, "opened": 0}
    selector = selectors.DefaultSelector()
    sockets = {}

    def open_one(at):
        try:
            conn = socket.create_connection(("127.0.0.1", port), 2, source_address=(source, 0))
        except OSError:
            state["refused"] += 1
            return
        conn.setblocking(False)
        state["opened"] += 1
        # The next byte's time, staggered over the interval; the bytes sent so far.
        sockets[conn] = [at, 0]
        selector.register(conn, selectors.EVENT_READ)

    def close_one(conn, cut):
        selector.unregister(conn)
        del sockets[conn]
        conn.close()
        if cut:
            state["cut"] += 1

    def run():
        now = time.monotonic()
        for index in range(count):
            open_one(now + every * index / count)
        while time.monotonic() < stop_at:
            for key, _ in selector.select(0.05):
                try:
                    data = key.fileobj.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    close_one(key.fileobj, True)
            now = time.monotonic()
            for conn, slot in list(sockets.items()):
                if now >= slot[0]:
                    try:
                        conn.send(head[slot[1] % len(head):slot[1] % len(head) + 1])
                        slot[1] += 1
                        slot[0] = now + every
                    except OSError:
                        close_one(conn, True)
            while len(sockets) < count and time.monotonic() < stop_at:
                open_one(time.monotonic() + every)
        for conn in list(sockets):
            close_one(conn, False)

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(min(2, seconds / 4))  # let the tricklers connect before the first probe
    times, failures = [], 0
    while time.monotonic() < stop_at:
        start = time.monotonic()
        try:
            with socket.create_connection(("127.0.0.1", port), 5) as probe:
                probe.settimeout(5)
                probe.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                answer = b""
                while chunk := probe.recv(4096):
                    answer += chunk
            if answer.startswith(b"HTTP/1.1 200"):
                times.append(time.monotonic() - start)
            else:
                failures += 1
        except OSError:
            failures += 1
        time.sleep(0.1)
    worker.join()
    return {
        "tricklers": count, "seconds": seconds, "byte_every_s": every, "opened": state["opened"],
        "cut_by_server": state["cut"], "refused": state["refused"], "probes": len(times) + failures,
        "probe_failures": failures,
        "healthz_p50_ms": round(percentile(times, 50) * 1000, 1) if times else None,
        "healthz_p99_ms": round(percentile(times, 99) * 1000, 1) if times else None,
        "healthz_max_ms": round(max(times) * 1000, 1) if times else None,
    }


def trickle_only(args):
    """`--only trickle`: a fresh serve with its defaults (but the key and loopback sources)."""
    work = tempfile.mkdtemp(prefix="serve-bench-")
    serve = None
    try:
        serve, port = start_serve(args.pushattach, work, os.path.join(work, "cache"))
        result = {"machine": f"{platform.node()} {os.cpu_count()} cores, {platform.platform()}",
                  "trickle": trickle(port, args.tricklers, args.trickle_seconds)}
        result["trickle"]["serve_alive"] = serve.poll() is None
    finally:
        stop(serve)
        shutil.rmtree(work, ignore_errors=True)
    return result


def print_trickle(t):
    print(f"trickle: {t['tricklers']} connections from 127.0.0.2 each sending a head byte every {t['byte_every_s']} s "
          f"for {t['seconds']} s ({t['opened']} opened, {t['cut_by_server']} cut off by the server, {t['refused']} refused): "
          f"/healthz p50 {t['healthz_p50_ms']} ms, p99 {t['healthz_p99_ms']} ms, max {t['healthz_max_ms']} ms, "
          f"{t['probe_failures']} of {t['probes']} probes failed (target: every probe within 1 s)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pushattach", required=True)
    parser.add_argument("--photos", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--warm-rounds", type=int, default=3)
    parser.add_argument("--json")
    parser.add_argument("--only", choices=["trickle"], help="run one phase alone")
    parser.add_argument("--tricklers", type=int, default=1000)
    parser.add_argument("--trickle-seconds", type=int, default=30)
    args = parser.parse_args()
    if args.only == "trickle":
        result = trickle_only(args)
        text = json.dumps(result, indent=2)
        print(text)
        if args.json:
            with open(args.json, "w") as f:
                f.write(text + "\n")
        print_trickle(result["trickle"])
        return
    for tool in ["nginx", "wrk", "curl", "thumbor"]:
        if not shutil.which(tool):
            raise SystemExit(f"serve-bench: {tool} is not installed (make serve-bench installs nginx-light, wrk and thumbor)")

    work = tempfile.mkdtemp(prefix="serve-bench-")
    os.chmod(work, 0o755)
    photos = sorted(f for f in os.listdir(args.photos) if f.lower().endswith((".jpg", ".jpeg")))
    photos_root, static_root = os.path.join(work, "photos"), os.path.join(work, "static")
    os.makedirs(photos_root)
    os.makedirs(static_root)
    for name in photos:
        shutil.copy(os.path.join(args.photos, name), photos_root)
    os.system(f"chmod -R a+rX {work}")
    nginx = thumbor = serve = None
    result = {"machine": f"{platform.node()} {os.cpu_count()} cores, {platform.platform()}", "photos": len(photos),
              "rounds": args.rounds, "concurrency": args.concurrency, "load_before": round(load_average(), 2)}
    try:
        nginx, origin, static = start_nginx(work, photos_root, static_root)
        thumbor, thumbor_port = start_thumbor(work)
        sources = [f"http://127.0.0.1:{origin}/photos/{name}" for name in photos]

        # Cold, thumbor: every request resizes (no storage). One warm-up request loads its engine.
        thumbor_urls = [f"http://127.0.0.1:{thumbor_port}/unsafe/fit-in/2048x2048/filters:quality(85):no_upscale()/"
                        + s.removeprefix("http://") for s in sources]
        curl_round(thumbor_urls[:1], 1)
        result["cold_thumbor"] = cold(thumbor_urls, args.rounds, args.concurrency)
        stop(thumbor)
        thumbor = None

        # Cold, ours: a fresh cache and a fresh process each round (its first request included).
        state = {}
        port = free_port()

        def fresh():
            stop(state.get("serve"))
            cache = os.path.join(work, f"cache-{time.monotonic_ns()}")
            state["serve"], _ = start_serve(args.pushattach, work, cache, port)

        ours_urls = [f"http://127.0.0.1:{port}{link(s)}" for s in sources]
        result["cold_ours"] = cold(ours_urls, args.rounds, args.concurrency, fresh)
        serve = state["serve"]

        # Thundering herd: 1,000 requests at once for one uncached 12 MP photo, on a fresh cache.
        fresh()
        big = min(photos, key=lambda name: abs(jpeg_pixels(os.path.join(photos_root, name)) - 12_000_000))
        big_path = link(f"http://127.0.0.1:{origin}/photos/{big}")
        with open(os.path.join(work, "origin-access.log")) as f:
            before = sum(1 for line in f if f"/photos/{big} " in line)
        result["herd"] = herd(port, big_path, 1000)
        with open(os.path.join(work, "origin-access.log")) as f:
            result["herd"]["origin_downloads"] = sum(1 for line in f if f"/photos/{big} " in line) - before
        result["herd"]["photo"] = big
        result["herd"]["megapixels"] = round(jpeg_pixels(os.path.join(photos_root, big)) / 1e6, 1)
        serve = state["serve"]

        # Warm: the same links, now cached, against nginx serving the same bytes.
        paths = [link(s) for s in sources]
        for index, path in enumerate(paths):
            subprocess.run(["curl", "-s", "-o", os.path.join(static_root, f"{index}.jpg"), f"http://127.0.0.1:{port}{path}"],
                           check=True)
        os.system(f"chmod -R a+rX {static_root}")
        sizes = [os.path.getsize(os.path.join(static_root, f"{i}.jpg")) for i in range(len(paths))]
        result["mean_answer_bytes"] = int(statistics.mean(sizes))
        # Alternated rounds (ours, nginx, ours, nginx, ...): the median of each, so a burst of
        # load on the shared cores does not land on one side only.
        ours_runs, nginx_runs = [], []
        for _ in range(args.warm_rounds):
            ours_runs.append(wrk(f"http://127.0.0.1:{port}", paths, work, args.connections, args.duration, "ours"))
            nginx_runs.append(wrk(f"http://127.0.0.1:{static}", [f"/static/{i}.jpg" for i in range(len(paths))], work,
                                  args.connections, args.duration, "nginx"))
        median = lambda runs: sorted(runs, key=lambda r: r["rps"])[len(runs) // 2]
        result["warm_ours"] = dict(median(ours_runs), rounds=[r["rps"] for r in ours_runs])
        result["warm_nginx"] = dict(median(nginx_runs), rounds=[r["rps"] for r in nginx_runs])

        # Memory under 1,000 open connections.
        held, sampled, hwm = rss_while(
            serve.pid, lambda: wrk(f"http://127.0.0.1:{port}", paths, work, 1000, args.duration, "thousand"))
        result["thousand_connections"] = dict(held, peak_rss_mb=round(sampled / 1e6, 1), vmhwm_mb=round(hwm / 1e6, 1))

        # Slow request heads: 1,000 tricklers against a server with its defaults.
        stop(serve)
        serve = state["serve"] = None
        serve, trickle_port = start_serve(args.pushattach, work, os.path.join(work, "cache-trickle"))
        result["trickle"] = trickle(trickle_port, args.tricklers, args.trickle_seconds)
    finally:
        for process in [serve, thumbor, nginx, state.get("serve") if "state" in dir() else None]:
            stop(process)
        result["load_after"] = round(load_average(), 2)
        shutil.rmtree(work, ignore_errors=True)

    result["cold_ratio"] = round(result["cold_ours"]["rps"] / result["cold_thumbor"]["rps"], 2)
    result["warm_ratio"] = round(result["warm_ours"]["rps"] / result["warm_nginx"]["rps"], 2)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    print(f"\ncold: {result['cold_ours']['rps']} req/s ours vs {result['cold_thumbor']['rps']} thumbor "
          f"({result['cold_ratio']}x, target >= 2x)")
    print(f"warm: {result['warm_ours']['rps']} req/s ours vs {result['warm_nginx']['rps']} nginx "
          f"({result['warm_ratio']}x, target >= 0.8x)")
    h = result["herd"]
    print(f"herd: {h['requests']} requests for {h['photo']} ({h['megapixels']} MP): {h['status_200']} x 200, {h['distinct_bodies']} distinct body, "
          f"{h['origin_downloads']} origin download(s), p50 {h['p50_ms']} ms, p99 {h['p99_ms']} ms")
    print(f"1,000 connections: peak RSS {result['thousand_connections']['peak_rss_mb']} MB "
          f"(VmHWM {result['thousand_connections']['vmhwm_mb']} MB, target <= 128 MB)")
    print_trickle(result["trickle"])


if __name__ == "__main__":
    main()
