#!/usr/bin/env python3
"""Draws the throughput chart of a `Benchmarks/compare --json` result as a small SVG.

    Benchmarks/chart.py results.json chart.svg

One group of horizontal bars per workload (W1 thumbnail 256, W2 fit 2048, and the format workloads
of formats.py), one bar per tool in images per second (PNG decode: megapixels), ours highlighted. Python 3 standard library only; `compare --svg FILE` calls it
on the figures it has just measured.
"""
import json
import sys
from xml.sax.saxutils import escape

TITLES = {"w1": "W1: thumbnail 256, JPEG q80", "w2": "W2: fit in 2048, JPEG q85",
          "png-decode": "PNG decode (megapixels per second)", "png-fit": "PNG fit in 2048, PNG out",
          "webp-fit": "WebP fit in 2048, JPEG q85"}
ORDER = ["ours", "libvips", "Pillow", "ImageMagick", "floor"]
LABELS = {"floor": "TurboJPEG floor", "ours": "PushAttach"}


def svg(result, title):
    figures = result["figures"]
    rows = []
    for w in sorted(figures):
        tools = [t for t in ORDER if t in figures[w]] + sorted(t for t in figures[w] if t not in ORDER)
        rows.append(("title", TITLES.get(w, w.upper()), None))
        for t in tools:
            label = LABELS.get(t, t.replace("ours x", "PushAttach, ") + (" threads" if t.startswith("ours x") else ""))
            rows.append(("bar", label, (t, figures[w][t])))
    peak = max(v for kind, _, data in rows if kind == "bar" for v in [data[1]])
    left, width, bar, gap = 190, 420, 18, 6
    y = 44
    parts = [f'<text x="10" y="24" font-size="15" font-weight="bold">{escape(title)}</text>']
    for kind, label, data in rows:
        if kind == "title":
            y += 10
            parts.append(f'<text x="10" y="{y + 12}" font-size="13" font-weight="bold">{escape(label)}</text>')
            y += bar + gap
            continue
        tool, value = data
        length = max(1, round(width * value / peak))
        ours = tool.startswith("ours")
        colour = "#1a7f37" if ours else "#8c959f"
        parts.append(f'<text x="{left - 8}" y="{y + 13}" font-size="12" text-anchor="end">{escape(label)}</text>')
        parts.append(f'<rect x="{left}" y="{y}" width="{length}" height="{bar}" fill="{colour}"/>')
        parts.append(f'<text x="{left + length + 6}" y="{y + 13}" font-size="12">{value:.1f}/s</text>')
        y += bar + gap
    y += 8
    note = f"images (PNG decode: megapixels) per second, higher is better; {result.get('cores', '?')} cores; load after the run {result.get('load_after', 0):.2f}"
    parts.append(f'<text x="10" y="{y + 10}" font-size="11" fill="#57606a">{escape(note)}</text>')
    height = y + 22
    body = "\n  ".join(parts)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="700" height="{height}" '
            f'viewBox="0 0 700 {height}" font-family="sans-serif">\n  '
            f'<rect width="700" height="{height}" fill="white"/>\n  {body}\n</svg>\n')


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: Benchmarks/chart.py RESULTS.json OUT.svg [TITLE]")
    with open(sys.argv[1]) as fh:
        result = json.load(fh)
    title = sys.argv[3] if len(sys.argv) == 4 else "Decode, resize and encode throughput"
    with open(sys.argv[2], "w") as fh:
        fh.write(svg(result, title))


if __name__ == "__main__":
    main()
