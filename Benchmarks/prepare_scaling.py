"""`pushattach prepare` of 500 URLs on one core and on two (taskset), over one local nginx, rounds
alternated: how the whole job scales with cores, for the 16/64-core projection in RESULTS.md.

    Benchmarks/.venv/bin/python Benchmarks/prepare_scaling.py --pushattach .build/release/pushattach \
        [--photos ../shared/corpus/photos] [--count 500] [--rounds 3] [--json FILE]

nginx is not pinned: on the one-core runs it has the other core to itself, on the two-core runs it
shares them, so the speedup printed is, if anything, understated. Wall time and CPU time (user +
system, /usr/bin/time) of the whole `prepare` process; the median of the rounds.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from whole_job import nginx  # noqa: E402


def run(binary, listing, out, cpus):
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%U %S", "taskset", "-c", cpus, binary, "prepare", listing, "-o", out,
                           "-q", "--allow-private-networks"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"prepare_scaling: prepare exited {proc.returncode}: {proc.stderr[-1500:]}")
    user, system = proc.stderr.strip().splitlines()[-1].split()
    return wall, float(user) + float(system)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pushattach", default=".build/release/pushattach")
    parser.add_argument("--photos", default=os.path.join(HERE, "..", "..", "shared", "corpus", "photos"))
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    if (os.cpu_count() or 1) < 2:
        sys.exit("prepare_scaling: needs two cores")
    photos = os.path.abspath(args.photos)
    names = sorted(n for n in os.listdir(photos) if n.lower().endswith((".jpg", ".jpeg")))
    results = {"1": [], "2": []}
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as work:
        server, port = nginx(photos, os.path.join(work, "nginx"))
        try:
            listing = os.path.join(work, "urls.txt")
            with open(listing, "w") as f:
                f.writelines(f"http://127.0.0.1:{port}/p/{names[i % len(names)]}?i={i}\n" for i in range(args.count))
            for r in range(args.rounds):
                for cores, cpus in (("1", "0"), ("2", "0,1")):
                    wall, cpu = run(os.path.abspath(args.pushattach), listing, os.path.join(work, "out"), cpus)
                    results[cores].append({"wall_s": wall, "cpu_s": cpu})
                    print(f"round {r + 1}, {cores} core(s): {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
        finally:
            server.terminate()
            server.wait()
    med = {k: {m: statistics.median(x[m] for x in v) for m in ("wall_s", "cpu_s")} for k, v in results.items()}
    speedup = med["1"]["wall_s"] / med["2"]["wall_s"]
    serial = max(0.0, 2 / speedup - 1)
    print(f"{args.count} URLs, median of {args.rounds}: 1 core {med['1']['wall_s']:.1f} s "
          f"({args.count / med['1']['wall_s']:.1f} images/s, CPU {med['1']['cpu_s']:.1f} s); 2 cores "
          f"{med['2']['wall_s']:.1f} s ({args.count / med['2']['wall_s']:.1f} images/s, CPU {med['2']['cpu_s']:.1f} s)")
    print(f"speedup {speedup:.2f}x; Amdahl serial fraction from it {serial:.3f}; load {load_before:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rounds": results, "median": med, "speedup": speedup, "serial_fraction": serial,
                       "count": args.count, "load_before": load_before, "load_after": os.getloadavg()[0]}, f, indent=2)


main()
