#!/usr/bin/env python3
"""`serve`'s first answer for one image against what it is made of.

For each image (default: the 12 MP olympus_e-p3.jpg of the corpus and its HEIC from
Benchmarks/make-heif-set), in alternated rounds:
- bench: `pushattach-bench` fitting that one image in 2048 on one thread (its W2, or W5 for
  HEIC/AVIF), the median of its rounds: the engine's time;
- download: curl fetching the original from a local nginx (loopback), the median of the rounds;
- cold: a `pushattach serve` with an empty cache asked for a new link to the image (a query that
  nginx ignores makes each round's URL new), timed by curl to the last byte of the answer.
Prints each figure and cold / (bench + download), the issue's target being at most 1.3.

Everything is on 127.0.0.1; nginx and serve are stopped by PID at the end.

    python3 Benchmarks/serve/first_answer.py --pushattach .build/release/pushattach \
        --bench .build/release/pushattach-bench --image ../shared/corpus/photos/olympus_e-p3.jpg \
        --image .build/bench-heif/olympus_e-p3.heic --rounds 5 --json out.json
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_bench as sb  # noqa: E402


def bench_seconds(bench, image, rounds):
    """The engine's seconds for one image on one thread: pushattach-bench over a folder holding it."""
    folder = tempfile.mkdtemp(prefix="first-answer-bench-")
    try:
        shutil.copy(image, folder)
        workload = "w5" if image.lower().endswith((".heic", ".avif")) else "w2"
        out = subprocess.run([bench, "--workload", workload, "--threads", "1", "--rounds", str(rounds),
                              "--folder", folder, "--json"], capture_output=True, text=True, check=True).stdout
        document = json.loads(out)
        rows = [r for r in document["results"] if r["workload"] == workload and r["threads"] == 1]
        return 1.0 / rows[0]["images_per_s"]
    finally:
        shutil.rmtree(folder)


def curl_seconds(url, output=os.devnull):
    out = subprocess.run(["curl", "-sf", "-o", output, "-w", "%{time_total} %{http_code} %{size_download}", url],
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1]), int(out[2])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pushattach", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--image", action="append", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="first-answer-")
    os.chmod(work, 0o755)
    origin_root = os.path.join(work, "origin")
    os.makedirs(origin_root)
    for image in args.image:
        shutil.copy(image, origin_root)
    os.system(f"chmod -R a+rX {origin_root}")
    result = {"machine": platform.node(), "cpus": os.cpu_count(), "load_before": sb.load_average(), "images": []}
    nginx = serve = None
    try:
        nginx, origin, _ = sb.start_nginx(work, origin_root, os.path.join(work, "static"))
        serve, port = sb.start_serve(args.pushattach, work, os.path.join(work, "cache"))
        for image in args.image:
            name = os.path.basename(image)
            url = f"http://127.0.0.1:{origin}/photos/{name}"
            curl_seconds(url)  # the page cache and nginx warmed once
            benches, downloads, colds, sizes = [], [], [], set()
            for r in range(args.rounds):
                benches.append(bench_seconds(args.bench, image, 3))
                downloads.append(curl_seconds(url)[0])
                seconds, status, size = curl_seconds(f"http://127.0.0.1:{port}{sb.link(f'{url}?round={r}')}")
                if status != 200:
                    raise SystemExit(f"first-answer: serve answered {status} for {name}")
                colds.append(seconds)
                sizes.add(size)
            bench, download, cold = (statistics.median(v) for v in (benches, downloads, colds))
            row = {"image": name, "bench_ms": round(bench * 1000, 1), "download_ms": round(download * 1000, 2),
                   "cold_ms": round(cold * 1000, 1), "ratio": round(cold / (bench + download), 2),
                   "cold_rounds_ms": [round(c * 1000, 1) for c in colds],
                   "bench_rounds_ms": [round(b * 1000, 1) for b in benches], "answer_bytes": sorted(sizes)}
            result["images"].append(row)
            print(f"{name}: cold {row['cold_ms']} ms against bench {row['bench_ms']} ms + download "
                  f"{row['download_ms']} ms: {row['ratio']}x (target <= 1.3x)", flush=True)
    finally:
        for process in [serve, nginx]:
            if process:
                sb.stop(process)
        shutil.rmtree(work, ignore_errors=True)
    result["load_after"] = sb.load_average()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
