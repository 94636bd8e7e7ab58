"""The Python half of Benchmarks/compare: see that script. Prints a side-by-side table of
images/s, our ratio to each tool and W1 luma SSIM against a Pillow LANCZOS reference; W4 (large
PNGs, issue 11) is its own table: ours and libvips per image, with time, peak RSS and SSIM."""
import argparse, io, json, os, platform, shutil, statistics, subprocess, sys, tempfile, time

os.environ["VIPS_CONCURRENCY"] = "1"  # before pyvips loads: the single-thread figure
os.environ["MAGICK_THREAD_LIMIT"] = "1"
import numpy as np
import pyvips
import simplejpeg
import PIL
from PIL import Image, ImageOps
from skimage.metrics import structural_similarity

pyvips.cache_set_max(0)  # no operation cache: every call does the work

WORKLOADS = {"w1": (256, 80), "w2": (2048, 85), "w4": (2048, 85)}
HERE = os.path.dirname(os.path.abspath(__file__))
MEMCHECK = os.path.join(HERE, "..", "Scripts", "memcheck")
# W4's images, written at run time by Scripts/memcheck/images.py: (file, width, height, real alpha).
W4_IMAGES = [("big-7000x7000.png", 7000, 7000, False), ("big-16000x3000-alpha.png", 16000, 3000, True)]


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
    # size="down": fit down only, as ours does (libvips' default also upscales a photo under the box).
    # Autorotation is libvips' default.
    return pyvips.Image.thumbnail_buffer(p.data, box, height=box, size="down").jpegsave_buffer(Q=q)


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


def run_floor_enc(p, box, q):
    """The floor a real tool could reach: TurboJPEG's scaled decode, then its encode of the fitted
    output size (the decoded pixels cropped to it, no resize) at the same quality and the same
    4:2:0 chroma every tool here writes at q85. (Until run M this encoded 4:4:4, simplejpeg's
    default: about 3 ms an image more work than any tool does, which flattered every ratio to it.)"""
    sw, sh = p.target(box)[1]
    try:
        pixels, colorspace = simplejpeg.decode_jpeg(p.data, colorspace="RGB", min_width=sw, min_height=sh), "RGB"
    except ValueError:  # CMYK, as run_floor
        pixels, colorspace = simplejpeg.decode_jpeg(p.data, colorspace="CMYK", min_width=sw, min_height=sh), "CMYK"
    fitted = np.ascontiguousarray(pixels[:sh, :sw])
    return simplejpeg.encode_jpeg(fitted, quality=q, colorspace=colorspace, colorsubsampling="420")


PEERS = {"libvips": run_vips, "Pillow": run_pillow, "ImageMagick": run_magick, "floor": run_floor,
         "floor+enc": run_floor_enc}


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


# ---- W4: large PNGs, ours and libvips per image (each in its own process, for its peak RSS)

def peak_line(text):
    """The `key=value` fields of vips_ref.py's one line."""
    return dict(field.split("=", 1) for field in text.split())


def upright_luma(img):
    """Luma, composited over white when the image has alpha (transparent pixels' colour is free)."""
    if img.mode in ("RGBA", "LA", "P"):
        img = img.convert("RGBA")
        white = Image.new("RGBA", img.size, (255, 255, 255, 255))
        img = Image.alpha_composite(white, img)
    return luma(img)


def w4(bench, rounds):
    """W4 figures: {image: {tool: {ms, peak_rss_mb, above_baseline_mb, output, bytes, ssim}}}."""
    sys.path.insert(0, MEMCHECK)
    sys.dont_write_bytecode = True  # no __pycache__ in Scripts/memcheck
    import images
    vips_ref = os.path.join(MEMCHECK, "vips_ref.py")
    tiny = os.path.join(HERE, "..", "TestImages", "small-320x240.jpg")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = peak_line(subprocess.run([sys.executable, vips_ref, tiny], stdout=subprocess.PIPE, text=True,
                                        check=True).stdout)
        vips_base = int(base["peak_rss_bytes"]) / 1e6
        for name, width, height, alpha in W4_IMAGES:
            folder = os.path.join(tmp, name + ".d")
            os.mkdir(folder)
            path = os.path.join(folder, name)
            images.png(path, width, height, alpha=alpha)
            out = os.path.join(tmp, "out")

            def ours_run(n):
                doc = json.loads(subprocess.run(
                    [bench, "--json", "--workload", "w4", "--threads", "1", "--rounds", str(n), "--folder", folder,
                     "--output", out], stdout=subprocess.PIPE, check=True).stdout)
                line = doc["results"][0] if doc["results"] else {"failures": ["no result"]}
                if line["failures"]:
                    sys.exit(f"compare: W4: pushattach-bench refused {name}: {line['failures'][0]}")
                return line, doc["baseline_rss_mb"]

            def vips_run(n, save, output):
                return peak_line(subprocess.run(
                    [sys.executable, vips_ref, path, "--save", save, "--rounds", str(n), "--output", output],
                    stdout=subprocess.PIPE, text=True, check=True).stdout)

            # Peak RSS from a run of its own with one measured round (libvips' grows round after
            # round in one process), time from `rounds` rounds.
            ours_mem, ours_base = ours_run(1)
            ours_time, _ = ours_run(rounds)
            ours_path = next(os.path.join(out, f) for f in os.listdir(out) if f.startswith(name + ".w4."))
            ours_out = open(ours_path, "rb").read()
            save = "png" if ours_out.startswith(b"\x89PNG") else "jpeg"
            tools = [("ours", ours_out, ours_time["p50_ms"], ours_mem["peak_rss_mb"], ours_base)]
            # The reference is a JPEG save: show it too when ours wrote a PNG of an opaque image.
            saves = [save] + (["jpeg"] if save == "png" and not alpha else [])
            for fmt in saves:
                vips_path = os.path.join(tmp, name + ".vips." + fmt)
                vips_mem = vips_run(1, fmt, vips_path)
                vips_time = vips_run(rounds, fmt, vips_path)
                tools.append(("libvips" if fmt == save else "libvips-" + fmt, open(vips_path, "rb").read(),
                              float(vips_time["seconds"]) * 1000, int(vips_mem["peak_rss_bytes"]) / 1e6, vips_base))
            # Quality: luma SSIM against Pillow's LANCZOS of the whole image (over white when alpha).
            ref_full = Image.open(path)
            ref_full.load()
            row = {}
            for tool, data, ms, rss, base_rss in tools:
                img = Image.open(io.BytesIO(data))
                ref = ref_full.resize(img.size, Image.LANCZOS)
                ssim = structural_similarity(upright_luma(ref), upright_luma(img), data_range=255)
                row[tool] = {"ms": ms, "peak_rss_mb": rss, "above_baseline_mb": rss - base_rss,
                             "baseline_mb": base_rss, "output": f"{img.width}x{img.height} {img.format}",
                             "bytes": len(data), "ssim": float(ssim)}
            del ref_full
            results[name] = row
            print(f"  w4 {name} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    return results


# ---- W5: HEIC and AVIF, ours and libvips per image (each in its own process, for its peak RSS)

def bundled_vips_decodes(path):
    """Whether pyvips-binary's libvips decodes this file (its libheif has AV1 but no HEVC)."""
    try:
        pyvips.Image.new_from_file(path, access="sequential").avg()
        return True
    except pyvips.Error:
        return False


def w5(bench, rounds, folder, debian_python):
    """W5 figures: {image: {tool: {ms, peak_rss_mb, output, bytes, ssim}}}; ssim is luma SSIM of the
    output against the other tool's (two independent libheif decodes, each fitted by its own resizer)."""
    vips_ref = os.path.join(MEMCHECK, "vips_ref.py")
    files = sorted(f for f in os.listdir(folder) if f.lower().endswith((".heic", ".heif", ".avif")))
    if not files:
        sys.exit(f"compare: W5: no HEIC or AVIF in {folder}; run Benchmarks/make-heif-set")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in files:
            one = os.path.join(tmp, name + ".d")
            os.mkdir(one)
            shutil.copy(os.path.join(folder, name), os.path.join(one, name))  # the bench skips symlinks
            out = os.path.join(tmp, "out")

            def ours_run(n):
                doc = json.loads(subprocess.run(
                    [bench, "--json", "--workload", "w5", "--threads", "1", "--rounds", str(n), "--folder", one,
                     "--output", out], stdout=subprocess.PIPE, check=True).stdout)
                line = doc["results"][0] if doc["results"] else {"failures": ["no result"]}
                if line["failures"]:
                    sys.exit(f"compare: W5: pushattach-bench refused {name}: {line['failures'][0]}")
                return line

            python = sys.executable
            vips_note = "pyvips-binary"
            if not bundled_vips_decodes(os.path.join(folder, name)):
                if not debian_python:
                    sys.exit("compare: W5: pyvips-binary's libvips cannot decode HEVC; set COMPARE_DEBIAN_VIPS_PYTHON")
                python, vips_note = debian_python, "Debian libvips42"

            def vips_run(n, output):
                # env: Python's view of the environment; the C one, which a child would inherit,
                # carries what pyvips-binary's libvips set in this process, and Debian's libvips
                # then finds no HEIF loader.
                return peak_line(subprocess.run(
                    [python, vips_ref, os.path.join(folder, name), "--save", "jpeg", "--rounds", str(n),
                     "--output", output], stdout=subprocess.PIPE, text=True, check=True, env=dict(os.environ)).stdout)

            ours_mem = ours_run(1)
            ours_time = ours_run(rounds)
            ours_path = next(os.path.join(out, f) for f in os.listdir(out) if f.startswith(name + ".w5."))
            vips_path = os.path.join(tmp, name + ".vips.jpg")
            vips_mem = vips_run(1, vips_path)
            vips_time = vips_run(rounds, vips_path)
            ours_img = Image.open(ours_path)
            vips_img = Image.open(vips_path)
            ssim = None
            if ours_img.size == vips_img.size:
                ssim = float(structural_similarity(luma(ours_img), luma(vips_img), data_range=255))
            results[name] = {
                "ours": {"ms": ours_time["p50_ms"], "peak_rss_mb": ours_mem["peak_rss_mb"],
                         "output": f"{ours_img.width}x{ours_img.height} {ours_img.format}",
                         "bytes": os.path.getsize(ours_path), "ssim": ssim},
                "libvips": {"ms": float(vips_time["seconds"]) * 1000,
                            "peak_rss_mb": int(vips_mem["peak_rss_bytes"]) / 1e6,
                            "output": f"{vips_img.width}x{vips_img.height} {vips_img.format}",
                            "bytes": os.path.getsize(vips_path), "ssim": ssim,
                            "libvips": f"{vips_time.get('libvips', '?')} ({vips_note})"},
            }
            print(f"  w5 {name} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    return results


def print_w5(results):
    print("\nW5: HEIC and AVIF (~12 MP, Benchmarks/make-heif-set) decoded and fitted to 2048, JPEG q85, one thread "
          "each (libvips: VIPS_CONCURRENCY=1), time the median of the rounds, peak RSS from a one-image run of its "
          "own; SSIM: luma SSIM of ours against libvips' output")
    print(f"{'image':28} {'tool':8} {'output':16} {'bytes':>9} {'ms/image':>9} {'ours/tool':>10} "
          f"{'peak RSS MB':>12} {'SSIM':>7}  libvips")
    for name, row in results.items():
        for tool, r in row.items():
            ratio = "" if tool == "ours" else f"{r['ms'] / row['ours']['ms']:.2f}x"
            ssim = f"{r['ssim']:.4f}" if r["ssim"] is not None else "-"
            print(f"{name:28} {tool:8} {r['output']:16} {r['bytes']:9} {r['ms']:9.0f} {ratio:>10} "
                  f"{r['peak_rss_mb']:12.0f} {ssim:>7}  {r.get('libvips', '')}")


def print_w4(results):
    print(f"\nW4: large PNGs fitted to 2048 (JPEG q85, or PNG), one thread each, time the median of the rounds; "
          f"peak RSS from a one-image run of its own, also above each tool's own baseline (ours: the bench after "
          f"reading its input; libvips: pyvips after a 320x240 thumbnail); libvips saves what ours saved")
    print(f"{'image':26} {'tool':12} {'output':16} {'bytes':>9} {'ms/image':>9} {'ours/tool':>10} "
          f"{'peak RSS MB':>12} {'above base':>11} {'luma SSIM':>10}")
    for name, row in results.items():
        for tool, r in row.items():
            ratio = "" if tool == "ours" else f"{r['ms'] / row['ours']['ms']:.2f}x"
            print(f"{name:26} {tool:12} {r['output']:16} {r['bytes']:9} {r['ms']:9.0f} {ratio:>10} "
                  f"{r['peak_rss_mb']:12.0f} {r['above_baseline_mb']:11.0f} {r['ssim']:10.4f}")


# ---- A1: animated WebP -> animated GIF, ours and libvips per file (each in its own process)

A1_FILES = [  # the repository's, relative to its root
    "TestImages/formats/animation/animated-160x120-alpha.webp",
    "TestImages/conformance/webp/misc/sharp_rotating-squares_animated.webp",
    "TestImages/conformance/webp/misc/pillow_iss634_animated.webp",
]
# The corpus' larger ones (320x240, 101 frames) when it is there: $PUSHATTACH_CORPUS, default ../shared/corpus.
A1_CORPUS_FILES = ["webp/metadata-extractor-images/animation_lossy.webp",
                   "webp/metadata-extractor-images/animation_lossless.webp"]

# libvips' side: the whole animation (n=-1) saved with gifsave (cgif + libimagequant), from the file
# on disk to GIF bytes in memory, in a process of its own; prints ms (median), peak RSS, bytes, frames.
VIPS_A1 = r"""
import os, statistics, sys, time
os.environ["VIPS_CONCURRENCY"] = "1"
import pyvips
pyvips.cache_set_max(0)
path, rounds, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
times = []
for _ in range(rounds):
    start = time.perf_counter()
    image = pyvips.Image.new_from_file(path, n=-1, access="sequential")
    data = image.gifsave_buffer()
    times.append(time.perf_counter() - start)
open(out, "wb").write(data)
hwm = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM:"))
frames = pyvips.Image.new_from_buffer(data, "", n=-1).get("n-pages")
print(f"ms={statistics.median(times) * 1000:.1f} peak_rss_bytes={hwm} bytes={len(data)} frames={frames}")
"""


def gif_facts(data):
    """(frames, width, height, first frame SSIM helper image) of a GIF, read by Pillow."""
    im = Image.open(io.BytesIO(data))
    return getattr(im, "n_frames", 1), im.width, im.height


def frame_ssim(src_path, gif_data):
    """Mean luma SSIM over every frame, each over mid grey, of a GIF against Pillow's decode of
    the WebP (resized to the GIF's size when smaller)."""
    src, out = Image.open(src_path), Image.open(io.BytesIO(gif_data))
    scores = []
    for i in range(min(getattr(src, "n_frames", 1), getattr(out, "n_frames", 1))):
        src.seek(i)
        out.seek(i)
        a, b = src.convert("RGBA"), out.convert("RGBA")
        if a.size != b.size:
            a = a.resize(b.size, Image.LANCZOS)
        grey = Image.new("RGBA", a.size, (128, 128, 128, 255))
        scores.append(structural_similarity(luma(Image.alpha_composite(grey, a)),
                                            luma(Image.alpha_composite(grey, b)), data_range=255))
    return statistics.mean(scores) if scores else 0.0


def bench_animation(bench, tmp, path, rounds, label):
    """pushattach-bench's `a1` workload on the one animation at `path` (copied into a folder of its
    own under `tmp`: the bench skips symlinks): (the line of a one-round run, for its peak RSS; the
    line of a `rounds`-round run, for its time; the GIF it wrote)."""
    name = os.path.basename(path)
    folder = os.path.join(tmp, name + ".d")
    os.mkdir(folder)
    shutil.copyfile(path, os.path.join(folder, name))
    out = os.path.join(tmp, name + ".out")
    os.mkdir(out)

    def run(n):
        doc = json.loads(subprocess.run(
            [bench, "--json", "--workload", "a1", "--threads", "1", "--rounds", str(n), "--folder", folder,
             "--output", out], stdout=subprocess.PIPE, check=True).stdout)
        line = next((r for r in doc["results"] if r.get("images")), None) or {"failures": ["no result"]}
        if line.get("failures"):
            sys.exit(f"compare: {label}: pushattach-bench refused {name}: {line['failures'][0]}")
        return line

    mem = run(1)  # peak RSS from a one-round run of its own
    timed = run(rounds)
    return mem, timed, open(os.path.join(out, name + ".a1.gif"), "rb").read()


def a1(bench, rounds):
    """A1 figures: {file: {tool: {ms, peak_rss_mb, bytes, frames, output, ssim}}}."""
    root = os.path.join(HERE, "..")
    corpus = os.environ.get("PUSHATTACH_CORPUS", "../shared/corpus")
    paths = [os.path.join(root, f) for f in A1_FILES] + [os.path.join(corpus, f) for f in A1_CORPUS_FILES]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            path = os.path.normpath(path)
            if not os.path.exists(path):
                continue
            name = os.path.basename(path)
            mem, timed, ours_data = bench_animation(bench, tmp, path, rounds, "A1")
            vips_path = os.path.join(tmp, name + ".vips.gif")
            vips = peak_line(subprocess.run([sys.executable, "-c", VIPS_A1, path, str(rounds), vips_path],
                                            stdout=subprocess.PIPE, text=True, check=True).stdout)
            vips_data = open(vips_path, "rb").read()
            row = {}
            for tool, data, ms, rss in [("ours", ours_data, timed["p50_ms"], mem["peak_rss_mb"]),
                                        ("libvips", vips_data, float(vips["ms"]),
                                         int(vips["peak_rss_bytes"]) / 1e6)]:
                frames, w, h = gif_facts(data)
                row[tool] = {"ms": ms, "peak_rss_mb": rss, "bytes": len(data), "frames": frames,
                             "output": f"{w}x{h}", "ssim": float(frame_ssim(path, data))}
            results[name] = row
            print(f"  a1 {name} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    return results


# ---- A2: GIFs over 10 MB, fitted under the cap: ours (the whole search) against one resize and
# encode to our output size by ImageMagick and by libvips, each in a process of its own

A2_GIFS = [  # written into .build/a2 by Benchmarks/big_gif.py when missing: (name, big_gif.py arguments)
    ("noise-640x480.gif", []),
    ("pan-1600x1200.gif", ["--kind", "pan", "--width", "1600", "--height", "1200", "--frames", "40"]),
    ("pan-2000x1500.gif", ["--kind", "pan", "--width", "2000", "--height", "1500", "--frames", "40"]),
]
A2_PHOTO = "photos/canon_eos_5d_portrait.jpg"  # the pan GIFs' photo, in the corpus

# libvips' side of A2: every frame (n=-1) resized to the given size, then gifsave; as VIPS_A1.
VIPS_A2 = r"""
import os, statistics, sys, time
os.environ["VIPS_CONCURRENCY"] = "1"
import pyvips
pyvips.cache_set_max(0)
path, rounds, out, width, height = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
times = []
for _ in range(rounds):
    start = time.perf_counter()
    image = pyvips.Image.new_from_file(path, n=-1, access="sequential")
    pages = image.get("n-pages")
    page_height = image.get("page-height")
    scaled = image.resize(width / image.width, vscale=height / page_height, kernel="lanczos3")
    scaled = scaled.copy()
    scaled.set_type(pyvips.GValue.gint_type, "page-height", height)
    data = scaled.gifsave_buffer()
    times.append(time.perf_counter() - start)
open(out, "wb").write(data)
hwm = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(f"ms={statistics.median(times) * 1000:.1f} peak_rss_bytes={hwm} bytes={len(data)} frames={pages}")
"""


def a2_files():
    """The A2 GIFs, written when missing (the pan ones need the corpus' photo)."""
    folder = os.path.join(HERE, "..", ".build", "a2")
    os.makedirs(folder, exist_ok=True)
    corpus = os.environ.get("PUSHATTACH_CORPUS", "../shared/corpus")
    paths = []
    for name, extra in A2_GIFS:
        path = os.path.normpath(os.path.join(folder, name))
        if not os.path.exists(path):
            if "--kind" in extra:
                photo = os.path.join(corpus, A2_PHOTO)
                if not os.path.exists(photo):
                    continue
                extra = extra + ["--photo", photo]
            subprocess.run([sys.executable, os.path.join(HERE, "big_gif.py"), path] + extra, check=True,
                           stdout=subprocess.DEVNULL)
        paths.append(path)
    return paths


def time_magick_a2(path, rounds, size, out):
    """ImageMagick, one thread: coalesce, resize every frame, optimize the layers, write the GIF."""
    convert = "/usr/bin/convert" if os.path.exists("/usr/bin/convert") else "convert"
    cmd = [convert, path, "-coalesce", "-resize", f"{size[0]}x{size[1]}!", "-layers", "optimize", out]
    times, rss = [], 0
    for _ in range(rounds):
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stderr=subprocess.PIPE, text=True, check=True,
                              env={**os.environ, "MAGICK_THREAD_LIMIT": "1"})
        times.append(time.perf_counter() - start)
        rss = max(rss, int(proc.stderr.strip().splitlines()[-1]) * 1024)
    return statistics.median(times) * 1000, rss


def a2(bench, rounds):
    """A2 figures: {file: {tool: {ms, peak_rss_mb, bytes, frames, output, ssim}}}."""
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in a2_files():
            name = os.path.basename(path)
            mem, timed, ours_data = bench_animation(bench, tmp, path, rounds, "A2")
            frames, w, h = gif_facts(ours_data)
            magick_path = os.path.join(tmp, name + ".magick.gif")
            magick_ms, magick_rss = time_magick_a2(path, rounds, (w, h), magick_path)
            vips_path = os.path.join(tmp, name + ".vips.gif")
            vips = peak_line(subprocess.run([sys.executable, "-c", VIPS_A2, path, str(rounds), vips_path, str(w), str(h)],
                                            stdout=subprocess.PIPE, text=True, check=True).stdout)
            row = {}
            for tool, data_path, ms, rss in [
                ("ours", None, timed["p50_ms"], mem["peak_rss_mb"] * 1e6),
                ("ImageMagick", magick_path, magick_ms, magick_rss),
                ("libvips", vips_path, float(vips["ms"]), int(vips["peak_rss_bytes"])),
            ]:
                data = ours_data if data_path is None else open(data_path, "rb").read()
                n, ow, oh = gif_facts(data)
                row[tool] = {"ms": ms, "peak_rss_mb": rss / 1e6, "bytes": len(data), "frames": n,
                             "output": f"{ow}x{oh}", "ssim": float(frame_ssim(path, data))}
            results[name] = {"input_bytes": os.path.getsize(path), **row}
            print(f"  a2 {name} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    return results


def print_a2(results):
    print("\nA2: GIFs over 10 MB fitted under it, one thread, median of the rounds. Ours: the whole fit (size "
          "search, every frame decoded, resized, quantised, encoded; pushattach-bench from bytes in memory); "
          "ImageMagick (-coalesce -resize WxH -layers optimize) and libvips (n=-1, resize, gifsave): one resize "
          "and encode to our output size, from the file. SSIM: mean luma SSIM of every frame against the "
          "input's frames resized (LANCZOS)")
    print(f"{'file':20} {'input MB':>8} {'tool':12} {'output':10} {'frames':>6} {'MB':>6} {'ms/file':>9} "
          f"{'ours/tool':>10} {'peak RSS MB':>12} {'SSIM':>7}")
    for name, row in results.items():
        for tool, r in row.items():
            if tool == "input_bytes":
                continue
            ratio = "" if tool == "ours" else f"{r['ms'] / row['ours']['ms']:.2f}x"
            print(f"{name:20} {row['input_bytes'] / 1e6:8.1f} {tool:12} {r['output']:10} {r['frames']:6} "
                  f"{r['bytes'] / 1e6:6.2f} {r['ms']:9.0f} {ratio:>10} {r['peak_rss_mb']:12.0f} {r['ssim']:7.4f}")


def print_a1(results):
    print("\nA1: animated WebP -> animated GIF, one thread, time the median of the rounds (ours: pushattach-bench "
          "from bytes in memory; libvips: pyvips from the file, n=-1, gifsave); peak RSS of a process of its own; "
          "SSIM: mean luma SSIM of every frame over mid grey against Pillow's decode of the WebP")
    print(f"{'file':40} {'tool':8} {'output':10} {'frames':>6} {'bytes':>9} {'ms/file':>9} {'ours/tool':>10} "
          f"{'peak RSS MB':>12} {'SSIM':>7}")
    for name, row in results.items():
        for tool, r in row.items():
            ratio = "" if tool == "ours" else f"{r['ms'] / row['ours']['ms']:.2f}x"
            print(f"{name:40} {tool:8} {r['output']:10} {r['frames']:6} {r['bytes']:9} {r['ms']:9.1f} {ratio:>10} "
                  f"{r['peak_rss_mb']:12.0f} {r['ssim']:7.4f}")


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
    ap.add_argument("--workload", default="w1,w2",
                    help="w1, w2 (the photos), w4 (large PNGs, written at run time), w5 (HEIC/AVIF of --heif-folder), "
                         "a1 (animated WebP -> GIF), a2 (GIFs over 10 MB, written into .build/a2), "
                         "png-decode, png-fit, webp-fit (the format set of --formats-folder; see formats.py); "
                         "'formats' for those three and w5 on the set's heif/")
    ap.add_argument("--heif-folder", default=".build/bench-heif",
                    help="W5's HEIC and AVIF files (Benchmarks/make-heif-set writes them)")
    ap.add_argument("--formats-folder", default=".build/bench-formats",
                    help="the format set of png-decode, png-fit and webp-fit (Benchmarks/make-format-set writes it)")
    args = ap.parse_args()
    sys.path.insert(0, HERE)
    import formats
    folder = os.path.abspath(args.folder)
    photos = [Photo(os.path.join(folder, n)) for n in sorted(os.listdir(folder))
              if n.lower().endswith((".jpg", ".jpeg"))]
    cores = os.cpu_count() or 1
    workloads = args.workload.split(",")
    if "formats" in workloads:
        workloads = [w for w in workloads if w != "formats"] + list(formats.FORMAT_WORKLOADS) + ["w5"]
        args.heif_folder = os.path.join(args.formats_folder, "heif")
    format_workloads = [w for w in workloads if w in formats.FORMAT_WORKLOADS]
    photo_workloads = [w for w in workloads if w not in ("w4", "w5", "a1", "a2") + formats.FORMAT_WORKLOADS]
    magick = subprocess.run(["convert", "-version"], stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]
    print(f"compare: {len(photos)} JPEGs from {folder}; {args.rounds} rounds, tools alternated round by round")
    print(f"  libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)} (pyvips {pyvips.__version__}), "
          f"Pillow {PIL.__version__}, simplejpeg {simplejpeg.__version__}, {magick}")
    load_before = os.getloadavg()[0]
    print(f"  load before: {load_before:.2f}")

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
    for w in photo_workloads:
        box, q = WORKLOADS[w]
        # ImageMagick is W1 only: Debian's policy.xml (256 MiB pixel cache) refuses the 16+ MP
        # photos at full size ("cache resources exhausted").
        peers = (["libvips", "Pillow", "ImageMagick", "floor"] if w == "w1"
                 else ["libvips", "Pillow", "floor", "floor+enc"])
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

    format_results = (formats.run(args.bench, os.path.abspath(args.formats_folder), format_workloads, args.rounds)
                      if format_workloads else {})
    w4_results = w4(args.bench, args.rounds) if "w4" in workloads else {}
    w5_results = (w5(args.bench, args.rounds, os.path.abspath(args.heif_folder),
                     os.environ.get("COMPARE_DEBIAN_VIPS_PYTHON")) if "w5" in workloads else {})
    a1_results = a1(args.bench, args.rounds) if "a1" in workloads else {}
    a2_results = a2(args.bench, args.rounds) if "a2" in workloads else {}

    load_after = os.getloadavg()[0]
    print()
    if figures:
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
    if w4_results:
        print_w4(w4_results)
    format_checks = formats.report(format_results) if format_results else []
    if w5_results:
        print_w5(w5_results)
    if a1_results:
        print_a1(a1_results)
    if a2_results:
        print_a2(a2_results)
    print(f"\nload after: {load_after:.2f}; ImageMagick figures include one process start per image")
    for t, (_, _, problems) in qual.items():
        for line in problems:
            print(f"  {t}: {line}")

    # Targets of issues 5 and 25.
    print("\ntargets:")
    checks = []
    if "w1" in figures:
        f = figures["w1"]
        checks += [("W1 >= 1.35x libvips", f["ours"] / f["libvips"] >= 1.35, f"{f['ours'] / f['libvips']:.2f}x"),
                   ("W1 >= 1.15x Pillow", f["ours"] / f["Pillow"] >= 1.15, f"{f['ours'] / f['Pillow']:.2f}x"),
                   ("W1 >= 1.0x floor", f["ours"] / f["floor"] >= 1.0, f"{f['ours'] / f['floor']:.2f}x")]
        if qual:
            checks += [("W1 SSIM mean >= libvips - 0.003", qual["ours"][0] >= qual["libvips"][0] - 0.003,
                        f"{qual['ours'][0]:.4f} vs {qual['libvips'][0]:.4f}"),
                       ("W1 SSIM min >= 0.90", qual["ours"][1] >= 0.90, f"{qual['ours'][1]:.4f}"),
                       ("W1 every output upright", not qual["ours"][2], f"{len(qual['ours'][2])} problems")]
    if "w2" in figures:
        f = figures["w2"]
        checks += [("W2 >= 1.5x libvips (fit down)", f["ours"] / f["libvips"] >= 1.5, f"{f['ours'] / f['libvips']:.2f}x"),
                   ("W2 >= 0.85x floor+enc", f["ours"] / f["floor+enc"] >= 0.85,
                    f"{f['ours'] / f['floor+enc']:.2f}x"),
                   ("W2 vs decode-only floor (no target)", True, f"{f['ours'] / f['floor']:.2f}x")]
    # Targets of issue 11: each large PNG at least as fast as libvips, within 64 MB above the baseline.
    for name, row in w4_results.items():
        ours, vips = row["ours"], row["libvips"]
        checks += [(f"W4 {name[4:-4]} time <= libvips", ours["ms"] <= vips["ms"], f"{vips['ms'] / ours['ms']:.2f}x"),
                   (f"W4 {name[4:-4]} <= 64 MB above base", ours["above_baseline_mb"] <= 64,
                    f"{ours['above_baseline_mb']:.0f} MB")]
    for name, row in a2_results.items():
        ours = row["ours"]
        for tool in ("ImageMagick", "libvips"):
            checks.append((f"A2 {name[:-4]} <= 1.5x {tool}", ours["ms"] <= 1.5 * row[tool]["ms"],
                           f"{ours['ms'] / row[tool]['ms']:.2f}x its time"))
        checks.append((f"A2 {name[:-4]} output <= 10 MB", ours["bytes"] <= 10_000_000, f"{ours['bytes'] / 1e6:.2f} MB"))
    checks += format_checks
    # W5 (issue 48): AVIF at least 1.2x and HEIC 1.1x libvips, the median image's ratio.
    for kind, target in ((".avif", 1.2), (".heic", 1.1)):
        ratios = [row["libvips"]["ms"] / row["ours"]["ms"] for name, row in w5_results.items() if name.endswith(kind)]
        if ratios:
            r = statistics.median(ratios)
            checks.append((f"W5 {kind[1:].upper()} >= {target}x libvips", r >= target,
                           f"{r:.2f}x (" + ", ".join(f"{x:.2f}" for x in ratios) + ")"))
    for w, f in figures.items():
        k = f"ours x{cores}"
        checks.append((f"{w.upper()} all cores >= 1.8x single", f[k] / f["ours"] >= 1.8, f"{f[k] / f['ours']:.2f}x"))
    for name, ok, value in checks:
        print(f"  {'met   ' if ok else 'MISSED'} {name:34} {value}")
    if args.json:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from validation_bench import describe, machine
        with open(args.json, "w") as fh:
            json.dump({"figures": figures, "quality": {k: [float(v[0]), float(v[1])] for k, v in qual.items()},
                       "w4": w4_results, "w5": w5_results, "a1": a1_results, "a2": a2_results,
                       "formats": format_results,
                       "targets": [{"name": n, "met": bool(ok), "value": v} for n, ok, v in checks],
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
                       "bench": describe(args.bench), "load_before": load_before,
                       "load_after": load_after, "cpu": machine()["cpu"], "cores": cores}, fh, indent=2)
    if args.svg and (figures or format_results):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import chart
        result = {"figures": {**figures, **{w: e["figures"] for w, e in format_results.items()}},
                  "load_after": load_after, "cores": cores}
        with open(args.svg, "w") as fh:
            fh.write(chart.svg(result, "Decode, resize and encode throughput"))
        print(f"chart: {args.svg}")


if __name__ == "__main__":
    main()
