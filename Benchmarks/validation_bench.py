"""Pass-through JPEGs, validated: `verify` of a folder and `prepare` of a folder of baseline JPEGs (or,
with --progressive, progressive ones) that already fit (1600 px, q85, 4:2:0, upright), for two
`pushattach` binaries, alternated. Every such
file is only proved whole by a 1/8 decode (`ImageProcessor.decodeToValidate`), so this times that
decode and what surrounds it (sniffing, hashing, writing).

The photos are the corpus photos re-encoded by Pillow; each is linked COPIES times under other names.
Prints wall and CPU seconds (user + system) per run and the medians; --json writes them.

    Benchmarks/.venv/bin/python Benchmarks/validation_bench.py --before /tmp/before/.build/release/pushattach \
        --after .build/release/pushattach [--photos ../shared/corpus/photos] [--copies 100] [--rounds 3] [--progressive] [--json FILE]
"""
import argparse, json, os, platform, resource, shutil, statistics, subprocess, sys, tempfile, time

from PIL import Image, ImageOps


def make_set(photos, folder, copies, progressive=False):
    """The re-encoded photos (progressive ones with `progressive`), each linked `copies` times; returns
    the file paths."""
    os.makedirs(folder)
    paths = []
    for name in sorted(n for n in os.listdir(photos) if n.lower().endswith((".jpg", ".jpeg"))):
        image = ImageOps.exif_transpose(Image.open(os.path.join(photos, name))).convert("RGB")
        image.thumbnail((1600, 1600))
        first = os.path.join(folder, f"{os.path.splitext(name)[0]}-0.jpg")
        image.save(first, quality=85, subsampling=2, progressive=progressive)
        paths.append(first)
        for i in range(1, copies):
            path = os.path.join(folder, f"{os.path.splitext(name)[0]}-{i}.jpg")
            os.link(first, path)
            paths.append(path)
    return paths


def describe(binary):
    """What the run records of a binary: its path and the commit of the checkout it was built in."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(binary))))
    commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return {"binary": binary, "commit": commit.stdout.strip() or "unknown"}


def machine():
    """The CPU model and core count, as the results must name them."""
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as fh:
            model = next((l.split(":", 1)[1].strip() for l in fh if l.startswith("model name")), model)
    except OSError:
        pass
    return {"cpu": model, "cores": os.cpu_count(), "system": platform.platform()}


def timed(cmd):
    """(wall seconds, CPU seconds) of `cmd`, its output dropped."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        sys.exit(f"validation_bench: {cmd[0]} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    default_photos = "../shared/corpus/photos" if os.path.isdir("../shared/corpus/photos") else "TestImages/conformance/photos"
    ap.add_argument("--photos", default=default_photos)
    ap.add_argument("--copies", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--progressive", action="store_true", help="save the set as progressive JPEGs")
    ap.add_argument("--json")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="validation-bench-")
    try:
        paths = make_set(args.photos, os.path.join(work, "set"), args.copies, args.progressive)
        batch = os.path.join(work, "batch")  # prepare takes a folder as its INPUT
        os.makedirs(batch)
        for path in paths[:500]:
            os.link(path, os.path.join(batch, os.path.basename(path)))
        load = os.getloadavg()[0]
        runs = {}
        for r in range(args.rounds):
            for label, binary in [("before", args.before), ("after", args.after)]:
                out = os.path.join(work, "out")
                shutil.rmtree(out, ignore_errors=True)
                for job, cmd in [("verify", [binary, "verify", os.path.join(work, "set"), "--json"]),
                                 ("prepare", [binary, "prepare", batch, "-o", out, "-q"])]:
                    wall, cpu = timed([os.path.abspath(cmd[0])] + cmd[1:])
                    if job == "prepare":
                        written = len(os.listdir(os.path.join(out, "Images")))
                        if written != 500:
                            sys.exit(f"validation_bench: prepare wrote {written} of 500 files")
                    runs.setdefault(f"{job} {label}", []).append({"wall_s": wall, "cpu_s": cpu})
                    print(f"  round {r + 1}: {job} {label}: {wall:.2f} s wall, {cpu:.2f} s CPU", file=sys.stderr)
        medians = {k: {"wall_s": statistics.median(v["wall_s"] for v in runs[k]),
                       "cpu_s": statistics.median(v["cpu_s"] for v in runs[k])} for k in runs}
        kind = "progressive" if args.progressive else "baseline"
        print(f"validation: {len(paths)} {kind} files for verify, 500 for prepare; {args.rounds} rounds alternated; "
              f"load {load:.2f} before")
        for job in ("verify", "prepare"):
            b, a = medians[f"{job} before"], medians[f"{job} after"]
            print(f"  {job:8} before {b['wall_s']:.2f} s ({b['cpu_s']:.2f} CPU)  after {a['wall_s']:.2f} s "
                  f"({a['cpu_s']:.2f} CPU)  {b['wall_s'] / a['wall_s']:.2f}x wall, {b['cpu_s'] / a['cpu_s']:.2f}x CPU")
        if args.json:
            with open(args.json, "w") as fh:
                json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
                           "before": describe(args.before), "after": describe(args.after),
                           "files": len(paths), "progressive": args.progressive, "rounds": args.rounds, "load_before": load,
                           "load_after": os.getloadavg()[0], "runs": runs, "medians": medians}, fh, indent=2)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
