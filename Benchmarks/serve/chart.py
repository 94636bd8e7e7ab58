#!/usr/bin/env python3
"""Draws `make serve-bench`'s result as a small SVG: requests/s, cold (ours, thumbor) and warm
(ours, nginx static), one group each, ours highlighted.

    Benchmarks/serve/chart.py .build/serve-bench.json Benchmarks/serve/serve.svg
"""
import json
import sys
from xml.sax.saxutils import escape


def svg(result):
    groups = [
        ("Cold: every photo prepared once (fresh cache), 4 at a time", [
            ("pushattach serve", result["cold_ours"]["rps"], True), ("thumbor (fit 2048, q85)", result["cold_thumbor"]["rps"], False)]),
        ("Warm: cached answers, wrk -t2 -c64", [
            ("pushattach serve", result["warm_ours"]["rps"], True), ("nginx, the same files", result["warm_nginx"]["rps"], False)]),
    ]
    left, width, bar, gap = 200, 380, 18, 6
    out, y = [], 40
    for title, bars in groups:
        peak = max(v for _, v, _ in bars)
        out.append(f'<text x="10" y="{y}" font-weight="bold">{escape(title)}</text>')
        y += 10
        for label, value, ours in bars:
            w = max(1, int(width * value / peak))
            color = "#d9480f" if ours else "#868e96"
            out.append(f'<text x="{left - 8}" y="{y + 13}" text-anchor="end">{escape(label)}</text>')
            out.append(f'<rect x="{left}" y="{y}" width="{w}" height="{bar}" fill="{color}"/>')
            out.append(f'<text x="{left + w + 6}" y="{y + 13}">{value:g} req/s</text>')
            y += bar + gap
        y += 22
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="700" height="{y}" font-family="sans-serif" font-size="12">'
            f'<text x="10" y="18" font-size="14" font-weight="bold">pushattach serve, {escape(result["machine"].split(",")[0])}'
            f' (higher is better)</text>')
    return head + "".join(out) + "</svg>\n"


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        data = json.load(f)
    if "cold_ours" not in data:
        print(f"chart: no cold or warm figures in {sys.argv[1]} (a run of one phase); no chart drawn")
        sys.exit(0)
    with open(sys.argv[2], "w") as f:
        f.write(svg(data))
