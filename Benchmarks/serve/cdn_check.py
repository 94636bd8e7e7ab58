#!/usr/bin/env python3
"""`make serve-cdn-check`: the Varnish recipe of docs/SERVE.md, run: Varnish in front of two
`pushattach serve` replicas sharing one cache folder, against a slow origin.

    Benchmarks/serve/cdn_check.py --pushattach .build/release/pushattach --vcl docs/serve/varnish.vcl \
        [--herd 200] [--json out.json]

Everything runs on 127.0.0.1 and is stopped by PID at the end: an origin (Python's http.server,
answering the photo after a delay, as a slow origin does, and counting requests), the two
replicas, and varnishd with docs/serve/varnish.vcl as it is (its two backend ports replaced).
Checks, each printed with its figures; the exit status is 1 when one fails:
- herd: HERD requests at once for one new link through Varnish: every answer a 200 with the same
  body, one request reaching the replicas, one origin download;
- hits: later requests are Varnish hits (X-Varnish names two transactions) carrying Age, which
  grows;
- refusal: the origin's 404 and a 422 are kept by Varnish from their first answer;
- two clocks: an origin slower than serve's --deadline gives 504 with Retry-After through
  Varnish (not kept), and a retry joins the preparation: 200, one origin download.
Python 3 standard library only (plus varnishd).
"""
import argparse
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_bench import KEY, free_port, link, wait_port  # noqa: E402  (the same links and ports as serve-bench)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Origin(http.server.ThreadingHTTPServer):
    """Serves `photo` at /slow-N.jpg after `delay` seconds (a slow origin: the sleep is its
    pace), text at /note.jpg, 404 elsewhere; counts requests by path."""

    daemon_threads = True

    def __init__(self, photo, delay):
        self.photo, self.delay, self.counts, self.lock = photo, delay, {}, threading.Lock()
        super().__init__(("127.0.0.1", 0), OriginHandler)

    def count(self, path):
        with self.lock:
            return self.counts.get(path, 0)


class OriginHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        server = self.server
        with server.lock:
            server.counts[self.path] = server.counts.get(self.path, 0) + 1
        if self.path.startswith("/slow-"):
            delay = server.delay * (2 if "clock" in self.path else 1)
            time.sleep(delay)
            body, status, kind = server.photo, 200, "image/jpeg"
        elif self.path == "/note.jpg":
            body, status, kind = b"this is not a picture\n", 200, "image/jpeg"
        else:
            body, status, kind = b"not here\n", 404, "text/plain"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def get(port, path, timeout=60):
    """(status, headers with lower-case names, body); errors become their status."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def metric(port, name):
    _, _, body = get(port, "/metrics")
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def stop(process):
    if process and process.poll() is None:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pushattach", required=True)
    parser.add_argument("--vcl", required=True)
    parser.add_argument("--herd", type=int, default=200)
    parser.add_argument("--delay", type=float, default=1.5, help="seconds the origin takes to answer")
    parser.add_argument("--json")
    args = parser.parse_args()
    if not shutil.which("varnishd"):
        raise SystemExit("serve-cdn-check: varnishd is not installed (make serve-cdn-check installs Debian's varnish)")

    work = tempfile.mkdtemp(prefix="serve-cdn-check-")
    os.chmod(work, 0o755)
    with open(os.path.join(ROOT, "TestImages", "photo-1600x1200.jpg"), "rb") as f:
        photo = f.read()
    origin = Origin(photo, args.delay)
    threading.Thread(target=origin.serve_forever, daemon=True).start()
    origin_port = origin.server_address[1]
    replicas, varnish = [], None
    result, failures = {"herd": {}, "hits": {}, "refusal": {}, "two_clocks": {}}, []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    try:
        key = os.path.join(work, "key")
        with open(key, "wb") as f:
            f.write(KEY)
        cache = os.path.join(work, "cache")
        ports = [free_port(), free_port()]
        for port in ports:
            replicas.append(subprocess.Popen(
                [args.pushattach, "serve", "--cache", cache, "--listen", f"127.0.0.1:{port}", "--key-file", key,
                 "--allow-private-networks", "--access-log", "off", "--deadline", "2"],
                stderr=open(os.path.join(work, f"serve-{port}.log"), "w")))
        for port in ports:
            wait_port(port)
        with open(args.vcl) as f:
            vcl = f.read()
        vcl = vcl.replace('.port = "8081"', f'.port = "{ports[0]}"').replace('.port = "8082"', f'.port = "{ports[1]}"')
        vcl_path = os.path.join(work, "varnish.vcl")
        with open(vcl_path, "w") as f:
            f.write(vcl)
        varnish_port = free_port()
        varnish = subprocess.Popen(
            ["varnishd", "-F", "-j", "none", "-n", os.path.join(work, "varnish"), "-a", f"127.0.0.1:{varnish_port}",
             "-f", vcl_path, "-s", "malloc,64m", "-T", "none"],
            stdout=open(os.path.join(work, "varnish.log"), "w"), stderr=subprocess.STDOUT)
        wait_port(varnish_port, 60)

        # Herd: one new link, HERD requests at once through Varnish.
        herd_path = link(f"http://127.0.0.1:{origin_port}/slow-herd.jpg")
        answers = [None] * args.herd

        def ask(index):
            answers[index] = get(varnish_port, herd_path)

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(args.herd)]
        start = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.monotonic() - start
        reached = sum(metric(p, "pushattach_cache_misses_total") + metric(p, "pushattach_cache_hits_total") for p in ports)
        herd = result["herd"]
        herd.update(requests=args.herd, status_200=sum(1 for a in answers if a[0] == 200),
                    distinct_bodies=len({a[2] for a in answers}), requests_at_replicas=int(reached),
                    origin_downloads=origin.count("/slow-herd.jpg"), seconds=round(wall, 2))
        check(herd["status_200"] == args.herd and herd["distinct_bodies"] == 1,
              f"herd: {herd['status_200']} of {args.herd} answers are 200, {herd['distinct_bodies']} distinct body ({wall:.2f} s)")
        check(herd["origin_downloads"] == 1, f"herd: {herd['origin_downloads']} origin download(s)")
        check(herd["requests_at_replicas"] == 1, f"herd: {herd['requests_at_replicas']} request(s) reached the replicas")

        # Hits: served by Varnish, with Age; one more after a second shows it growing.
        hits = [get(varnish_port, herd_path) for _ in range(20)]
        time.sleep(1.1)  # Age counts whole seconds
        later = get(varnish_port, herd_path)
        ages = [int(h[1].get("age", "-1")) for h in hits + [later]]
        is_hit = lambda answer: len(answer[1].get("x-varnish", "").split()) == 2
        result["hits"].update(requests=len(hits) + 1, varnish_hits=sum(1 for h in hits + [later] if is_hit(h)),
                              ages=sorted(set(ages)), cache_control=later[1].get("cache-control"),
                              etag=later[1].get("etag"))
        check(all(is_hit(h) for h in hits + [later]), f"hits: {result['hits']['varnish_hits']} of 21 are Varnish hits")
        check(all(a >= 0 for a in ages) and ages[-1] >= 1, f"hits: every answer carries Age ({result['hits']['ages']})")
        check(origin.count("/slow-herd.jpg") == 1, "hits: still one origin download")

        # Refusal: the origin's 404 is kept from its first answer.
        missing = link(f"http://127.0.0.1:{origin_port}/missing.jpg")
        first, second = get(varnish_port, missing), get(varnish_port, missing)
        result["refusal"].update(statuses=[first[0], second[0]], cache_control=[first[1].get("cache-control"), second[1].get("cache-control")],
                                 second_is_hit=is_hit(second), origin_requests=origin.count("/missing.jpg"))
        check(first[0] == 404 and second[0] == 404 and is_hit(second) and origin.count("/missing.jpg") == 1,
              f"refusal: 404 then a Varnish hit ({result['refusal']['cache_control'][0]}), {origin.count('/missing.jpg')} origin request")

        # And a file that cannot be an attachment: 422, kept the same way (the VCL's rule).
        note = link(f"http://127.0.0.1:{origin_port}/note.jpg")
        first, second = get(varnish_port, note), get(varnish_port, note)
        result["refusal"].update(rejected_statuses=[first[0], second[0]], rejected_second_is_hit=is_hit(second))
        check(first[0] == 422 and second[0] == 422 and is_hit(second) and origin.count("/note.jpg") == 1,
              f"refusal: 422 then a Varnish hit ({first[1].get('cache-control')}), {origin.count('/note.jpg')} origin request")

        # Two clocks: the origin takes twice the delay, over serve's 2 s deadline.
        clock = link(f"http://127.0.0.1:{origin_port}/slow-clock.jpg")
        late = get(varnish_port, clock)
        retry_after = late[1].get("retry-after")
        retried = get(varnish_port, clock)
        result["two_clocks"].update(first=late[0], retry_after=retry_after, cache_control=late[1].get("cache-control"),
                                    retry=retried[0], origin_downloads=origin.count("/slow-clock.jpg"))
        check(late[0] == 504 and retry_after is not None and late[1].get("cache-control") == "no-store",
              f"two clocks: 504 with Retry-After: {retry_after}, no-store")
        check(retried[0] == 200 and origin.count("/slow-clock.jpg") == 1,
              f"two clocks: the retry gets {retried[0]}, {origin.count('/slow-clock.jpg')} origin download")
    finally:
        stop(varnish)
        for replica in replicas:
            stop(replica)
        origin.shutdown()
        shutil.rmtree(work, ignore_errors=True)

    result["failures"] = failures
    text = json.dumps(result, indent=2)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    print(text)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
