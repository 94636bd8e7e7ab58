"""4:2:0 photos fitted in 2048 px (W2), for two builds, alternated: the speed and the quality of each
plane. Phones write 4:2:0 JPEGs; fitting a 4032x3024 one in 2048 px decodes it at 5/8, where
libjpeg gives the chroma a 10x10 IDCT (jdmaster.c) unless the shim decodes it at its own scale.

The set: every corpus photo over 2048 px re-encoded by Pillow at its own size, q92, 4:2:0 (no EXIF,
so upright). Each build's `pushattach-bench --workload w2 --threads 1` runs ROUNDS times, the two
alternated, and its warm-up outputs are kept (`--output`); each output's Y, Cb and Cr are compared
with Pillow's LANCZOS of the full decode at the same size (PSNR, dB). --json writes everything with
the machine and the commits.

    Benchmarks/.venv/bin/python Benchmarks/chroma_bench.py --before /tmp/before/.build/release/pushattach-bench \
        --after .build/release/pushattach-bench [--photos ../shared/corpus/photos] [--rounds 3] [--json FILE]
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, tempfile, time

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from validation_bench import describe, machine  # noqa: E402


def make_set(photos, folder):
    """The photos over 2048 px, re-encoded 4:2:0 at their own size; returns the names."""
    os.makedirs(folder)
    names = []
    for name in sorted(n for n in os.listdir(photos) if n.lower().endswith((".jpg", ".jpeg"))):
        image = Image.open(os.path.join(photos, name)).convert("RGB")
        if max(image.size) <= 2048:
            continue
        image.save(os.path.join(folder, name), quality=92, subsampling=2)
        names.append(name)
    return names


def bench(binary, folder, rounds, output=None):
    """W2's images a second (median of `rounds`, one thread), writing the warm-up's outputs to `output`."""
    cmd = [binary, "--workload", "w2", "--folder", folder, "--threads", "1", "--rounds", str(rounds), "--json"]
    if output:
        cmd += ["--output", output]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"chroma_bench: {binary} exited {proc.returncode}: {proc.stderr[-2000:]}")
    rows = [r for r in json.loads(proc.stdout)["results"] if r["workload"] == "w2"]
    return rows[0]["images_per_s"]


def psnr(a, b):
    mse = ((a - b) ** 2).mean()
    return float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse)


def quality(folder, names, outputs):
    """Per photo: the output size and the PSNR of Y, Cb, Cr of each build's output against Pillow's LANCZOS."""
    table = {}
    for name in names:
        images = {label: Image.open(os.path.join(out, f"{name}.w2.jpg")) for label, out in outputs.items()}
        size = next(iter(images.values())).size
        reference = np.asarray(Image.open(os.path.join(folder, name)).convert("RGB")
                               .resize(size, Image.LANCZOS).convert("YCbCr")).astype(float)
        table[name] = {"size": f"{size[0]}x{size[1]}"}
        for label, image in images.items():
            planes = np.asarray(image.convert("YCbCr")).astype(float)
            table[name][label] = [psnr(planes[..., c], reference[..., c]) for c in range(3)]
    return table


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="a pushattach-bench binary")
    ap.add_argument("--after", required=True, help="another pushattach-bench binary")
    default_photos = "../shared/corpus/photos" if os.path.isdir("../shared/corpus/photos") else "TestImages/conformance/photos"
    ap.add_argument("--photos", default=default_photos)
    ap.add_argument("--rounds", type=int, default=3, help="alternations; each runs W2 five rounds")
    ap.add_argument("--json")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="chroma-bench-")
    try:
        folder = os.path.join(work, "set")
        names = make_set(args.photos, folder)
        load = os.getloadavg()[0]
        runs = {"before": [], "after": []}
        outputs = {}
        for r in range(args.rounds):
            for label, binary in [("before", args.before), ("after", args.after)]:
                output = None
                if r == 0:
                    output = outputs[label] = os.path.join(work, f"out-{label}")
                    os.makedirs(output)
                rate = bench(os.path.abspath(binary), folder, 5, output)
                runs[label].append(rate)
                print(f"  round {r + 1}: {label}: {rate:.1f} images/s", file=sys.stderr)
        table = quality(folder, names, outputs)
        medians = {label: statistics.median(v) for label, v in runs.items()}
        print(f"W2 of {len(names)} 4:2:0 photos, one thread; {args.rounds} alternations of 5 rounds; "
              f"load {load:.2f} before, {os.getloadavg()[0]:.2f} after")
        print(f"  images/s: before {medians['before']:.1f}, after {medians['after']:.1f}: "
              f"{medians['after'] / medians['before']:.2f}x")
        print(f"  {'photo':38} {'size':>10}  PSNR Y / Cb / Cr before      after")
        for name, row in table.items():
            b, a = row["before"], row["after"]
            print(f"  {name:38} {row['size']:>10}  {b[0]:6.2f} {b[1]:6.2f} {b[2]:6.2f}   {a[0]:6.2f} {a[1]:6.2f} {a[2]:6.2f}")
        mean = {label: [statistics.mean(row[label][c] for row in table.values()) for c in range(3)]
                for label in ("before", "after")}
        print(f"  {'mean':38} {'':>10}  " + "   ".join(" ".join(f"{x:6.2f}" for x in mean[l]) for l in ("before", "after")))
        if args.json:
            with open(args.json, "w") as fh:
                json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
                           "before": describe(args.before), "after": describe(args.after), "photos": names,
                           "rounds": args.rounds, "load_before": load, "load_after": os.getloadavg()[0],
                           "images_per_s": runs, "medians": medians, "psnr": table, "psnr_mean": mean},
                          fh, indent=2)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
