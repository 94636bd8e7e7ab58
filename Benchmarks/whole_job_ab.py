"""The whole job's `prepare` for two builds: the 500-URL list of `whole_job.py` over the same local
nginx, the two binaries alternated round by round, wall and CPU seconds (user + system) of each
run. For a change whose effect on the job is smaller than the Python peer's spread between runs:
CPU time of the same work is steadier than a ratio to another program.

    Benchmarks/.venv/bin/python Benchmarks/whole_job_ab.py --before /tmp/before/.build/release/pushattach \
        --after .build/release/pushattach [--photos ../shared/corpus/photos] [--count 500] [--rounds 4] [--json FILE]
"""
import argparse, json, os, resource, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from validation_bench import describe, machine  # noqa: E402
from whole_job import serve_job  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    default_photos = "../shared/corpus/photos" if os.path.isdir("../shared/corpus/photos") else "TestImages/conformance/photos"
    ap.add_argument("--photos", default=default_photos)
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--json")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="whole-job-ab-")
    server, url_list, _ = serve_job(os.path.abspath(args.photos), work, args.count)
    binaries = {"before": args.before, "after": args.after}
    runs = {label: [] for label in binaries}
    try:
        load = os.getloadavg()[0]
        for r in range(args.rounds):
            for label in (list(binaries) if r % 2 == 0 else list(reversed(list(binaries)))):
                out = os.path.join(work, "out")
                shutil.rmtree(out, ignore_errors=True)
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                proc = subprocess.run([os.path.abspath(binaries[label]), "prepare", url_list, "-o", out, "-q",
                                       "--allow-private-networks"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                      text=True)
                wall = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if proc.returncode not in (0, 1):
                    sys.exit(f"whole_job_ab: {label} exited {proc.returncode}: {proc.stderr[-2000:]}")
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                runs[label].append({"wall_s": wall, "cpu_s": cpu})
                print(f"  round {r + 1}: {label}: {wall:.2f} s wall, {cpu:.2f} s CPU, load {os.getloadavg()[0]:.2f}",
                      file=sys.stderr)
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    medians = {k: {m: statistics.median(v[m] for v in runs[k]) for m in ("wall_s", "cpu_s")} for k in runs}
    b, a = medians["before"], medians["after"]
    print(f"whole job, prepare of {args.count} URLs; {args.rounds} rounds alternated; load {load:.2f} before")
    print(f"  before {b['wall_s']:.2f} s ({b['cpu_s']:.2f} CPU)  after {a['wall_s']:.2f} s ({a['cpu_s']:.2f} CPU)  "
          f"{b['wall_s'] / a['wall_s']:.3f}x wall, {b['cpu_s'] / a['cpu_s']:.3f}x CPU")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
                       "before": describe(args.before), "after": describe(args.after), "count": args.count,
                       "rounds": args.rounds, "load_before": load, "load_after": os.getloadavg()[0], "runs": runs,
                       "medians": medians}, fh, indent=2)


if __name__ == "__main__":
    main()
