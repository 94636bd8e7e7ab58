"""The spread of W1/W2 ratios over several `compare --json` files of one commit: one row per run,
then the median, minimum and maximum, and how many runs meet each issue-25 target.

    python3 Benchmarks/spread.py Benchmarks/results-run-l*.json
"""
import json
import statistics
import sys

TARGETS = {"W1 / floor": 1.0, "W2 / floor+enc": 0.85, "W2 / libvips": 1.5, "2 threads W1": 1.8, "2 threads W2": 1.8}


def ratios(path):
    figures = json.load(open(path))["figures"]
    w1, w2 = figures["w1"], figures["w2"]
    cores = next(k for k in w1 if k.startswith("ours x"))
    return {"W1 / floor": w1["ours"] / w1["floor"], "W2 / floor+enc": w2["ours"] / w2["floor+enc"],
            "W2 / libvips": w2["ours"] / w2["libvips"], "2 threads W1": w1[cores] / w1["ours"],
            "2 threads W2": w2[cores] / w2["ours"]}


def main(paths):
    if not paths:
        sys.exit(__doc__)
    runs = [(p, ratios(p)) for p in paths]
    names = list(TARGETS)
    print(f"{'run':32} " + " ".join(f"{n:>15}" for n in names))
    for path, r in runs:
        print(f"{path.split('/')[-1]:32} " + " ".join(f"{r[n]:15.2f}" for n in names))
    for label, fn in (("median", statistics.median), ("min", min), ("max", max)):
        print(f"{label:32} " + " ".join(f"{fn(r[n] for _, r in runs):15.2f}" for n in names))
    met = {n: sum(r[n] >= TARGETS[n] for _, r in runs) for n in names}
    print(f"{'runs meeting the target':32} " + " ".join(f"{f'{met[n]} of {len(runs)}':>15}" for n in names))


if __name__ == "__main__":
    main(sys.argv[1:])
