"""The libvips reference of Scripts/memory-check.sh and Benchmarks/compare (W4): one image,
`thumbnail` to fit BOX (2048) and saved as JPEG q85 (or PNG), in this process, then its peak RSS.

    Benchmarks/.venv/bin/python Scripts/memcheck/vips_ref.py IMAGE [--box 2048] [--save jpeg|png]
        [--rounds N] [--output FILE]

Prints one line: `peak_rss_bytes=N seconds=S width=W height=H bytes=B` (seconds: the median of
the rounds, each from the file on disk to encoded bytes in memory). Run it on a tiny image for
the process baseline. VIPS_CONCURRENCY applies as usual (unset: libvips' default threads).
"""
import argparse, resource, statistics, sys, time

import pyvips

pyvips.cache_set_max(0)  # no operation cache: every round does the work


def peak_rss_bytes():
    """VmHWM: this process's own high-water mark (Linux's ru_maxrss survives exec, so it would
    report the parent's peak when a large process, such as Benchmarks/compare, starts this one)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("image")
    ap.add_argument("--box", type=int, default=2048)
    ap.add_argument("--save", choices=["jpeg", "png"], default="jpeg")
    ap.add_argument("--quality", type=int, default=85)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--output")
    args = ap.parse_args()
    seconds, out, width, height = [], b"", 0, 0
    for _ in range(args.rounds):
        out = b""  # the previous round's output and image are gone before the next starts
        start = time.perf_counter()
        image = pyvips.Image.thumbnail(args.image, args.box, height=args.box, size="down")
        out = image.jpegsave_buffer(Q=args.quality) if args.save == "jpeg" else image.pngsave_buffer()
        seconds.append(time.perf_counter() - start)
        width, height = image.width, image.height
        del image
    if args.output:
        with open(args.output, "wb") as f:
            f.write(out)
    peak = peak_rss_bytes()
    print(f"peak_rss_bytes={peak} seconds={statistics.median(seconds):.4f} width={width} "
          f"height={height} bytes={len(out)} libvips={pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}")


if __name__ == "__main__":
    sys.exit(main())
