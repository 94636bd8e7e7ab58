"""The Python half of Benchmarks/compare: see that script. Prints a side-by-side table of
images/s, our ratio to each tool and W1 luma SSIM against a Pillow LANCZOS reference."""
import argparse, io, json, os, platform, statistics, subprocess, sys, tempfile, time

os.environ["VIPS_CONCURRENCY"] = "1"  # before pyvips loads: the single-thread figure
os.environ["MAGICK_THREAD_LIMIT"] = "1"
import numpy as np
import pyvips
import simplejpeg
import PIL
from PIL import Image, ImageOps
from skimage.metrics import structural_similarity

pyvips.cache_set_max(0)  # no operation cache: every call does the work

WORKLOADS = {"w1": (256, 80), "w2": (2048, 85)}


def fit(w, h, box):
    """FitBox.fit: the limiting side equals the box, the other rounded (halves up), never upscaled."""
    if w <= box and h <= box:
        return w, h
    if w >= h:
        return box, max(1, (2 * h * box + w) // (2 * w))
    return max(1, (2 * w * box + h) // (2 * h)), box


class Photo:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        with open(path, "rb") as f:
            self.data = f.read()
        im = Image.open(io.BytesIO(self.data))
        self.width, self.height = im.size
        self.orientation = im.getexif().get(0x0112, 1)
        if self.orientation not in range(1, 9):
            self.orientation = 1
        self.swaps = self.orientation >= 5

    def target(self, box):
        """The fitted size, upright, and the same in stored orientation (what a decode must cover)."""
        uw, uh = (self.height, self.width) if self.swaps else (self.width, self.height)
        tw, th = fit(uw, uh, box)
        return (tw, th), ((th, tw) if self.swaps else (tw, th))


# ---- the tools: each takes (photo, box, quality) and returns encoded JPEG bytes (or pixels for the floor)

def run_vips(p, box, q):
    return pyvips.Image.thumbnail_buffer(p.data, box, height=box).jpegsave_buffer(Q=q)


def run_pillow(p, box, q):
    im = Image.open(io.BytesIO(p.data))
    im.draft("RGB", p.target(box)[1])
    im = ImageOps.exif_transpose(im)
    im.thumbnail((box, box), Image.LANCZOS)
    if im.mode != "RGB":
        im = im.convert("RGB")
    out = io.BytesIO()
    im.save(out, "JPEG", quality=q)
    return out.getvalue()


def run_magick(p, box, q):
    cmd = ["convert", "-define", f"jpeg:size={2 * box}x{2 * box}", "jpg:-", "-auto-orient",
           "-thumbnail", f"{box}x{box}", "-quality", str(q), "jpg:-"]
    return subprocess.run(cmd, input=p.data, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout


def run_floor(p, box, q):
    """TurboJPEG's scaled decode alone, at the smallest scale covering the fitted size."""
    sw, sh = p.target(box)[1]
    try:
        return simplejpeg.decode_jpeg(p.data, colorspace="RGB", min_width=sw, min_height=sh)
    except ValueError:  # CMYK: TurboJPEG cannot convert it to RGB; decode it as CMYK
        return simplejpeg.decode_jpeg(p.data, colorspace="CMYK", min_width=sw, min_height=sh)


PEERS = {"libvips": run_vips, "Pillow": run_pillow, "ImageMagick": run_magick, "floor": run_floor}


def time_peer(fn, photos, box, q):
    start = time.perf_counter()
    for p in photos:
        fn(p, box, q)
    return len(photos) / (time.perf_counter() - start)


def time_ours(bench, folder, workload, threads):
    out = subprocess.run([bench, "--json", "--workload", workload, "--threads", str(threads), "--rounds", "1",
                          "--folder", folder], stdout=subprocess.PIPE, check=True).stdout
    result = json.loads(out)["results"][0]
    return result["images_per_s"]


# ---- quality

def luma(img):
    return np.asarray(img.convert("L"), dtype=np.float64)


def reference(p, size):
    im = ImageOps.exif_transpose(Image.open(io.BytesIO(p.data)))
    return im.convert("RGB").resize(size, Image.LANCZOS)


def quality(photos, outputs):
    """Mean / min luma SSIM and the upright check for one tool's W1 outputs."""
    scores, problems = [], []
    for p in photos:
        data = outputs.get(p.name)
        if data is None:
            problems.append(f"{p.name}: no output")
            continue
        out = Image.open(io.BytesIO(data))
        expected = p.target(WORKLOADS["w1"][0])[0]
        if (out.width > out.height) != (expected[0] > expected[1]) and expected[0] != expected[1]:
            problems.append(f"{p.name}: not upright ({out.width}x{out.height}, expected {expected[0]}x{expected[1]})")
        ref = reference(p, out.size)
        scores.append(structural_similarity(luma(ref), luma(out), data_range=255))
    return (statistics.mean(scores) if scores else 0.0, min(scores) if scores else 0.0, problems)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    # The corpus photos when the corpus is beside the repository, else the few the repository carries.
    default_folder = "../shared/corpus/photos" if os.path.isdir("../shared/corpus/photos") else "TestImages/conformance/photos"
    ap.add_argument("--folder", default=default_folder,
                    help="JPEG photos to compare on (default ../shared/corpus/photos when present, "
                         "else TestImages/conformance/photos)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--svg", help="also draw the throughput chart (Benchmarks/chart.py) to this file")
    ap.add_argument("--workload", default="w1,w2")
    args = ap.parse_args()
    folder = os.path.abspath(args.folder)
    photos = [Photo(os.path.join(folder, n)) for n in sorted(os.listdir(folder))
              if n.lower().endswith((".jpg", ".jpeg"))]
    cores = os.cpu_count() or 1
    workloads = args.workload.split(",")
    magick = subprocess.run(["convert", "-version"], stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]
    print(f"compare: {len(photos)} JPEGs from {folder}; {args.rounds} rounds, tools alternated round by round")
    print(f"  libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)} (pyvips {pyvips.__version__}), "
          f"Pillow {PIL.__version__}, simplejpeg {simplejpeg.__version__}, {magick}")
    print(f"  load before: {os.getloadavg()[0]:.2f}")

    # Quality first (untimed): every tool's W1 output.
    qual = {}
    if "w1" in workloads:
        box, q = WORKLOADS["w1"]
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([args.bench, "--workload", "w1", "--threads", "1", "--rounds", "1", "--folder", folder,
                            "--output", tmp], stdout=subprocess.DEVNULL, check=True)
            ours = {}
            for p in photos:
                path = os.path.join(tmp, p.name + ".w1.jpg")
                if os.path.exists(path):
                    ours[p.name] = open(path, "rb").read()
        qual["ours"] = quality(photos, ours)
        for name in ("libvips", "Pillow", "ImageMagick"):
            qual[name] = quality(photos, {p.name: PEERS[name](p, box, q) for p in photos})

    figures = {}
    for w in workloads:
        box, q = WORKLOADS[w]
        # ImageMagick is W1 only: Debian's policy.xml (256 MiB pixel cache) refuses the 16+ MP
        # photos at full size ("cache resources exhausted").
        peers = ["libvips", "Pillow", "ImageMagick", "floor"] if w == "w1" else ["libvips", "Pillow", "floor"]
        tools = peers + ["ours", f"ours x{cores}"]
        for t in peers:
            PEERS[t](photos[0], box, q)  # warm-up
        runs = {t: [] for t in tools}
        for r in range(args.rounds):
            order = tools[r % len(tools):] + tools[:r % len(tools)]
            for t in order:
                if t == "ours":
                    runs[t].append(time_ours(args.bench, folder, w, 1))
                elif t.startswith("ours x"):
                    runs[t].append(time_ours(args.bench, folder, w, cores))
                else:
                    runs[t].append(time_peer(PEERS[t], photos, box, q))
            print(f"  {w} round {r + 1}/{args.rounds} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
        figures[w] = {t: statistics.median(v) for t, v in runs.items()}

    load_after = os.getloadavg()[0]
    print()
    print(f"{'workload':9} {'tool':13} {'images/s':>9} {'ours / tool':>12} {'W1 SSIM mean':>13} {'W1 SSIM min':>12}")
    for w, f in figures.items():
        ours = f["ours"]
        for t, v in f.items():
            ratio = f"{ours / v:.2f}x" if not t.startswith("ours") else ""
            if t.startswith("ours x"):
                ratio = f"{v / ours:.2f}x 1 thr"
            s = qual.get(t if t != "ours" else "ours") if w == "w1" and not t.startswith("ours x") else None
            ssim = (f"{s[0]:13.4f} {s[1]:12.4f}") if s else f"{'':13} {'':12}"
            print(f"{w:9} {t:13} {v:9.1f} {ratio:>12} {ssim}")
    print(f"\nload after: {load_after:.2f}; ImageMagick figures include one process start per image")
    for t, (_, _, problems) in qual.items():
        for line in problems:
            print(f"  {t}: {line}")

    # Targets of issue 5.
    print("\ntargets:")
    checks = []
    if "w1" in figures:
        f = figures["w1"]
        checks += [("W1 >= 1.35x libvips", f["ours"] / f["libvips"] >= 1.35, f"{f['ours'] / f['libvips']:.2f}x"),
                   ("W1 >= 1.15x Pillow", f["ours"] / f["Pillow"] >= 1.15, f"{f['ours'] / f['Pillow']:.2f}x"),
                   ("W1 time <= 1.05x floor", f["floor"] / f["ours"] <= 1.05, f"{f['floor'] / f['ours']:.2f}x")]
        if qual:
            checks += [("W1 SSIM mean >= libvips - 0.003", qual["ours"][0] >= qual["libvips"][0] - 0.003,
                        f"{qual['ours'][0]:.4f} vs {qual['libvips'][0]:.4f}"),
                       ("W1 SSIM min >= 0.90", qual["ours"][1] >= 0.90, f"{qual['ours'][1]:.4f}"),
                       ("W1 every output upright", not qual["ours"][2], f"{len(qual['ours'][2])} problems")]
    if "w2" in figures:
        f = figures["w2"]
        checks += [("W2 >= 1.35x libvips", f["ours"] / f["libvips"] >= 1.35, f"{f['ours'] / f['libvips']:.2f}x"),
                   ("W2 >= 0.9x floor", f["ours"] / f["floor"] >= 0.9, f"{f['ours'] / f['floor']:.2f}x")]
    for w, f in figures.items():
        k = f"ours x{cores}"
        checks.append((f"{w.upper()} all cores >= 1.8x single", f[k] / f["ours"] >= 1.8, f"{f[k] / f['ours']:.2f}x"))
    for name, ok, value in checks:
        print(f"  {'met   ' if ok else 'MISSED'} {name:34} {value}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"figures": figures, "quality": {k: [float(v[0]), float(v[1])] for k, v in qual.items()},
                       "targets": [{"name": n, "met": bool(ok), "value": v} for n, ok, v in checks],
                       "load_after": load_after, "cpu": platform.processor(), "cores": cores}, fh, indent=2)
    if args.svg:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import chart
        result = {"figures": figures, "load_after": load_after, "cores": cores}
        with open(args.svg, "w") as fh:
            fh.write(chart.svg(result, "Decode, resize and encode throughput"))
        print(f"chart: {args.svg}")


if __name__ == "__main__":
    main()
