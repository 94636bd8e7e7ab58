"""The format workloads of Benchmarks/compare (`--workload png-decode,png-fit,webp-fit`), over the
set Benchmarks/make-format-set writes from the corpus photos (--formats-folder, default
.build/bench-formats): ours (pushattach-bench) and libvips, one thread each, alternated round by
round, medians.

    png-decode  every PNG decoded whole into memory: megapixels per second (ours: `bench w3`'s PNG
                line; libvips: pngload then write_to_memory, the same whole frame ours makes)
    png-fit     every PNG fitted in 2048 and written as PNG (ours: `bench w4`, which keeps an opaque
                PNG a PNG; libvips: thumbnail, size "down", then pngsave at its defaults), images
                per second, and the bytes each side wrote
    webp-fit    every WebP fitted in 2048 and written as JPEG q85 (ours: `bench w2`; libvips:
                thumbnail, size "down", jpegsave Q 85), images per second, and each side's luma SSIM
                against a full decode (Pillow) resized by Pillow's LANCZOS to the output's size

HEIC and AVIF are W5 (compare.py), run on the set's heif/ folder."""
import io, os, statistics, subprocess, sys, tempfile, time

import numpy as np
import pyvips
from PIL import Image
from skimage.metrics import structural_similarity

FORMAT_WORKLOADS = ("png-decode", "png-fit", "webp-fit")
# Which sub-folder of the set each reads, the bench workload that measures ours, and the unit.
SPEC = {"png-decode": ("png", "w3", "MP/s"), "png-fit": ("png", "w4", "img/s"), "webp-fit": ("webp", "w2", "img/s")}


def files(folder, sub):
    path = os.path.join(folder, sub)
    names = sorted(n for n in os.listdir(path) if not n.startswith("."))
    return [(n, open(os.path.join(path, n), "rb").read()) for n in names]


def vips_png_decode(items):
    """Megapixels per second of libvips decoding every PNG whole into memory."""
    pixels, start = 0, time.perf_counter()
    for _, data in items:
        image = pyvips.Image.new_from_buffer(data, "", access="sequential")
        image.write_to_memory()
        pixels += image.width * image.height
    return pixels / 1e6 / (time.perf_counter() - start)


def vips_fit(data, save):
    image = pyvips.Image.thumbnail_buffer(data, 2048, height=2048, size="down")
    return image.pngsave_buffer() if save == "png" else image.jpegsave_buffer(Q=85)


def vips_fit_rate(items, save):
    start = time.perf_counter()
    for _, data in items:
        vips_fit(data, save)
    return len(items) / (time.perf_counter() - start)


def ours_rate(bench, folder, workload, unit):
    out = subprocess.run([bench, "--json", "--workload", workload, "--threads", "1", "--rounds", "1",
                          "--folder", folder], stdout=subprocess.PIPE, check=True).stdout
    import json
    results = json.loads(out)["results"]
    if workload == "w3":
        line = next(r for r in results if r["format"] == "png")
        return line["mp_per_s"]
    return results[0]["images_per_s"]


def luma(img):
    return np.asarray(img.convert("L"), dtype=np.float64)


def outputs(bench, folder, workload, items, save):
    """Untimed: each side's output per file, {name: (ours bytes, libvips bytes)}."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([bench, "--workload", workload, "--threads", "1", "--rounds", "1", "--folder", folder,
                        "--output", tmp], stdout=subprocess.DEVNULL, check=True)
        made = {}
        for name, data in items:
            ours = [f for f in os.listdir(tmp) if f.startswith(name + ".")]
            made[name] = (open(os.path.join(tmp, ours[0]), "rb").read() if ours else None, vips_fit(data, save))
        return made


def quality(items, made):
    """Bytes and luma SSIM (against a full decode resized by LANCZOS) of each side's outputs."""
    result = {"ours": {"bytes": 0, "ssim": []}, "libvips": {"bytes": 0, "ssim": []}, "problems": []}
    for name, data in items:
        ours, vips = made[name]
        if ours is None:
            result["problems"].append(f"{name}: no output of ours")
            continue
        full = Image.open(io.BytesIO(data))
        full.load()
        for tool, out in (("ours", ours), ("libvips", vips)):
            img = Image.open(io.BytesIO(out))
            ref = full.convert("RGB").resize(img.size, Image.LANCZOS)
            result[tool]["bytes"] += len(out)
            result[tool]["ssim"].append(float(structural_similarity(luma(ref), luma(img), data_range=255)))
            result[tool].setdefault("format", img.format)
    for tool in ("ours", "libvips"):
        s = result[tool].pop("ssim")
        result[tool]["ssim_mean"] = statistics.mean(s) if s else 0.0
        result[tool]["ssim_min"] = min(s) if s else 0.0
    return result


def run(bench, folder, workloads, rounds):
    """{workload: {"figures": {ours, libvips}, "unit", "files", "quality"}}."""
    results = {}
    for w in workloads:
        sub, bench_workload, unit = SPEC[w]
        items = files(folder, sub)
        path = os.path.join(folder, sub)
        tools = {"ours": lambda: ours_rate(bench, path, bench_workload, unit),
                 "libvips": (lambda: vips_png_decode(items)) if w == "png-decode"
                 else (lambda save="png" if w == "png-fit" else "jpeg": vips_fit_rate(items, save))}
        names = list(tools)
        tools["libvips"]()  # warm-up
        runs = {t: [] for t in names}
        for r in range(rounds):
            for t in names[r % 2:] + names[:r % 2]:
                runs[t].append(tools[t]())
            print(f"  {w} round {r + 1}/{rounds} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
        entry = {"figures": {t: statistics.median(v) for t, v in runs.items()},
                 "rounds": runs, "unit": unit, "files": len(items)}
        if w != "png-decode":
            entry["quality"] = quality(items, outputs(bench, path, bench_workload, items,
                                                      "png" if w == "png-fit" else "jpeg"))
        results[w] = entry
    return results


def report(results):
    """Prints the table and returns the target checks: (name, met, value)."""
    print(f"\nformats (Benchmarks/make-format-set), one thread, median of the rounds")
    print(f"{'workload':11} {'tool':8} {'rate':>9} {'unit':6} {'ours/tool':>10} {'rounds':24} {'bytes':>11} "
          f"{'SSIM mean/min':>15}")
    checks = []
    for w, entry in results.items():
        f = entry["figures"]
        for tool, value in f.items():
            ratio = "" if tool == "ours" else f"{f['ours'] / value:.2f}x"
            spread = " ".join(f"{v:.1f}" for v in entry["rounds"][tool])
            q = entry.get("quality", {}).get(tool)
            extra = f"{q['bytes']:11} {q['ssim_mean']:.4f}/{q['ssim_min']:.4f}" if q else ""
            print(f"{w:11} {tool:8} {value:9.1f} {entry['unit']:6} {ratio:>10} {spread:24} {extra}")
        ratio = f["ours"] / f["libvips"]
        q = entry.get("quality")
        if w == "png-decode":
            checks.append(("PNG decode >= 1.2x libvips MP/s", ratio >= 1.2, f"{ratio:.2f}x"))
        elif w == "png-fit":
            bytes_ratio = q["ours"]["bytes"] / max(1, q["libvips"]["bytes"])
            checks += [("PNG fit 2048 >= 1.5x libvips", ratio >= 1.5, f"{ratio:.2f}x"),
                       ("PNG fit bytes <= 1.1x libvips'", bytes_ratio <= 1.1, f"{bytes_ratio:.2f}x")]
        elif w == "webp-fit":
            checks += [("WebP fit 2048 >= 1.3x libvips", ratio >= 1.3, f"{ratio:.2f}x"),
                       ("WebP SSIM mean >= libvips'", q["ours"]["ssim_mean"] >= q["libvips"]["ssim_mean"],
                        f"{q['ours']['ssim_mean']:.4f} vs {q['libvips']['ssim_mean']:.4f}")]
        for problem in (q or {}).get("problems", []):
            print(f"  {w}: {problem}")
    return checks
