#!/usr/bin/env python3
"""`serve`'s resident set after a burst of preparations, and as it goes idle.

Starts nginx (the origin) and `pushattach serve` on 127.0.0.1, asks for new links to every photo
of --photos, --concurrency at a time, --rounds times over, then prints serve's VmRSS right after
the burst and every --every seconds for --seconds. `serve` keeps freed frames for the next
preparation (MallocTuning's .lowLatency) and hands them back after 10 s without one, so the
figure should drop once, 10-15 s after the burst. Both processes are stopped by PID.

    python3 Benchmarks/serve/idle_memory.py --pushattach .build/release/pushattach \
        --photos ../shared/corpus/photos
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_bench as sb  # noqa: E402


def resident_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        line = next(line for line in f if line.startswith("VmRSS"))
    return int(line.split()[1]) // 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pushattach", required=True)
    parser.add_argument("--photos", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--every", type=int, default=5)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="idle-memory-")
    os.chmod(work, 0o755)
    photos = sorted(f for f in os.listdir(args.photos) if f.lower().endswith((".jpg", ".jpeg")))
    root = os.path.join(work, "photos")
    os.makedirs(root)
    for name in photos:
        shutil.copy(os.path.join(args.photos, name), root)
    os.system(f"chmod -R a+rX {work}")
    nginx = serve = None
    try:
        nginx, origin, _ = sb.start_nginx(work, root, os.path.join(work, "static"))
        serve, port = sb.start_serve(args.pushattach, work, os.path.join(work, "cache"))
        print(f"serve before any preparation: {resident_mb(serve.pid)} MB", flush=True)
        for r in range(args.rounds):
            urls = [f"http://127.0.0.1:{port}{sb.link(f'http://127.0.0.1:{origin}/photos/{n}?round={r}')}"
                    for n in photos]
            sb.curl_round(urls, args.concurrency)
        print(f"after {args.rounds * len(photos)} preparations, {args.concurrency} at a time: "
              f"{resident_mb(serve.pid)} MB", flush=True)
        for elapsed in range(args.every, args.seconds + 1, args.every):
            time.sleep(args.every)
            print(f"  idle {elapsed} s: {resident_mb(serve.pid)} MB", flush=True)
    finally:
        for process in [serve, nginx]:
            if process:
                sb.stop(process)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
