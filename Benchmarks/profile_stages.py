"""Where the CPU goes, stage by stage (issue 25's per-stage profile), in two views:

- W2 (`pushattach-bench --workload w2`, one thread) under callgrind: instruction counts (Ir),
  split into decode, resize, encode, sniff and headers, and the rest. Counts do not move with the
  machine's load; they miss the kernel and waits.
- `pushattach prepare` of the corpus photos (x10) over a local nginx under `perf record`: CPU
  samples, user and kernel, split the same way plus hash, fetch and kernel. valgrind 3.19 crashes
  on the multi-threaded `prepare`, so it gets samples, each counted by the library or symbol it
  ran in (no call graph): libjpeg is the decode, libturbojpeg the encode.

How a stage of W2 is counted, from `callgrind_annotate`:
- decode: inclusive instructions of libjpeg-turbo's decode entry points (`jpeg_read_header`,
  `jpeg_start_decompress`, `jpeg_read_scanlines`, `jpeg_skip_scanlines`, `jpeg_finish_decompress`,
  `tjDecompressHeader3`, `tjDecompress2`); the row decoder calls them from inside the resizer's
  row feed, so they are counted by entry point, not by caller;
- encode: inclusive of `tjCompress2` (and libpng's / libwebp's / giflib's writers, absent from
  photos);
- resize: the resizer's own instructions (self cost of every ImageEngine function of the Lanczos3
  passes, the box reduce, premultiply and the row feed), so the decode it pulls is not in it;
- sniff and headers: self cost of MediaTypes and Verification (sniffing, EXIF, the plan);
- hash: self cost of SystemSupport's SHA-256;
- fetch: inclusive of libcurl's `curl_multi_perform` and `curl_multi_poll`, plus Fetch's own;
- rest: everything else (Swift runtime, allocation, copies, the container and the journal).

    Benchmarks/.venv/bin/python Benchmarks/profile_stages.py --build .build/release \
        [--photos ../shared/corpus/photos] [--json FILE]
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from whole_job import nginx  # noqa: E402  (the same nginx the whole job is measured over)

DECODE = ["jpeg_read_header", "jpeg_start_decompress", "jpeg_read_scanlines", "jpeg_skip_scanlines",
          "jpeg_finish_decompress", "tjDecompressHeader3", "tjDecompress2", "png_read_row", "WebPDecode",
          "heif_decode_image", "DGifSlurp", "DGifGetLine"]
ENCODE = ["tjCompress2", "png_write_row", "WebPEncode", "EGifPutLine", "liq_image_quantize"]
FETCH = ["curl_multi_perform", "curl_multi_poll", "curl_multi_socket_action"]
RESIZE_SELF = re.compile(r"ImageEngine.*(Resampl|Resiz|BoxReduce|Premultipl|RowFeed|Weight|Scratch)")
SNIFF_SELF = re.compile(r"\$s\d*(MediaTypes|Verification)|^MediaTypes|^Verification")
HASH_SELF = re.compile(r"^\$s13SystemSupport.*(SHA256|MessageBlock)")
FETCH_SELF = re.compile(r"\$s\d*Fetch|Fetch\.")


def annotate(out_file, inclusive):
    """{function: Ir} from callgrind_annotate, self or inclusive costs."""
    cmd = ["callgrind_annotate", "--threshold=100", f"--inclusive={'yes' if inclusive else 'no'}", out_file]
    text = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    costs = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$", line)
        if not m or ":" not in m.group(2):
            continue
        name = m.group(2).split(":", 1)[1].split(" [")[0].strip()
        costs[name] = costs.get(name, 0) + int(m.group(1).replace(",", ""))
    return costs


def total_ir(out_file):
    for line in open(out_file, errors="replace"):
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    sys.exit(f"profile_stages: no totals in {out_file}")


def stages(out_file, images):
    incl, self_ = annotate(out_file, True), annotate(out_file, False)
    total = total_ir(out_file)
    row = {
        "decode": sum(incl.get(f, 0) for f in DECODE),
        "resize": sum(v for k, v in self_.items() if RESIZE_SELF.search(k)),
        "encode": sum(incl.get(f, 0) for f in ENCODE),
        "sniff+headers": sum(v for k, v in self_.items() if SNIFF_SELF.search(k)),
        "hash": sum(v for k, v in self_.items() if HASH_SELF.search(k)),
        "fetch": sum(incl.get(f, 0) for f in FETCH) + sum(v for k, v in self_.items() if FETCH_SELF.search(k)),
    }
    row["rest"] = max(0, total - sum(row.values()))
    return {"total_ir": total, "images": images, "stages": row}


def callgrind(cmd, out_file, env=None):
    full = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", "--trace-children=no"] + cmd
    proc = subprocess.run(full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    if proc.returncode not in (0, 1):
        sys.exit(f"profile_stages: {' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-1500:]}")


def stripped(build, name, work):
    """A copy of the binary without its DWARF (valgrind 3.19 gives up on the Swift 6 release
    build's: "Possibly corrupted debuginfo file"); the symbol table, and so the names, stay."""
    copy = os.path.join(work, name)
    shutil.copy(os.path.join(build, name), copy)
    subprocess.run(["strip", "--strip-debug", copy], check=True)
    return copy


def profile_w2(build, photos, work):
    out = os.path.join(work, "w2.callgrind")
    callgrind([stripped(build, "pushattach-bench", work), "--workload", "w2", "--rounds", "1", "--threads", "1",
               "--folder", photos], out)
    count = len([n for n in os.listdir(photos) if n.lower().endswith((".jpg", ".jpeg"))])
    return stages(out, 2 * count)  # the warm-up round and the measured one


def perf_stages(data):
    """{stage: share of samples} from `perf report` of a whole process, each sample by its own
    function (self): no call graph, so a stage is told by the library or the symbol it ran in.
    Shares come from the sample counts: perf's printed percentages round each of ~1,700 symbols
    up to 0.01 %, which would add up to 103 %."""
    text = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "-n", "--sort", "dso,sym",
                           "--percent-limit", "0"], capture_output=True, text=True, check=True).stdout
    row = dict.fromkeys(["decode", "resize", "encode", "sniff+headers", "hash", "fetch", "kernel", "rest"], 0)
    for line in text.splitlines():
        m = re.match(r"\s*[\d.]+%\s+(\d+)\s+(\S+)\s+\[(.)\]\s+(.*)$", line)
        if not m:
            continue
        share, dso, space, sym = int(m.group(1)), m.group(2), m.group(3), m.group(4).strip()
        if space == "k" or dso.startswith("[kernel"):
            stage = "kernel"
        elif dso.startswith("libjpeg.so"):
            stage = "decode"   # the row decoder: libjpeg's scanline API
        elif dso.startswith("libturbojpeg"):
            stage = "encode"   # tjCompress2 (prepare decodes photos through libjpeg's scanline API)
        elif dso.startswith(("libcurl", "libssl", "libcrypto", "libnghttp", "libz.so")) or FETCH_SELF.search(sym):
            stage = "fetch"
        elif RESIZE_SELF.search(sym):
            stage = "resize"
        elif HASH_SELF.search(sym):
            stage = "hash"
        elif SNIFF_SELF.search(sym):
            stage = "sniff+headers"
        else:
            stage = "rest"
        row[stage] += share
    samples = sum(row.values())
    if samples == 0:
        sys.exit(f"profile_stages: no samples in {data}")
    return {stage: 100 * count / samples for stage, count in row.items()}


def profile_prepare(build, photos, work):
    """`prepare` under `perf record` (valgrind 3.19 crashes on it): CPU samples, user and kernel."""
    names = sorted(n for n in os.listdir(photos) if n.lower().endswith((".jpg", ".jpeg")))
    server, port = nginx(photos, os.path.join(work, "nginx"))
    try:
        listing = os.path.join(work, "urls.txt")
        with open(listing, "w") as f:
            f.writelines(f"http://127.0.0.1:{port}/p/{n}?copy={i}\n" for i in range(10) for n in names)
        data = os.path.join(work, "prepare.perf")
        out = os.path.join(work, "out")
        proc = subprocess.run(["perf", "record", "-F", "999", "-o", data, "--", os.path.join(build, "pushattach"),
                               "prepare", listing, "-o", out, "-q", "--allow-private-networks"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if proc.returncode not in (0, 1):
            sys.exit(f"profile_stages: prepare under perf exited {proc.returncode}: {proc.stderr[-1500:]}")
        with open(os.path.join(out, "manifest.json")) as f:
            items = json.load(f)["entries"]
        prepared = sum(1 for item in items if item["status"] == "prepared")
        if prepared != len(items):
            sys.exit(f"profile_stages: only {prepared} of {len(items)} items prepared")
    finally:
        server.terminate()
        server.wait()
    return {"samples_percent": perf_stages(data), "images": len(items)}


def show_perf(title, result):
    print(f"{title}: share of CPU samples ({result['images']} images)")
    for stage, share in result["samples_percent"].items():
        print(f"  {stage:<14} {share:6.2f} %")


def show(title, result):
    total, n = result["total_ir"], result["images"]
    print(f"{title}: {total / n / 1e6:,.0f} M instructions per image ({n} images)")
    for stage, ir in result["stages"].items():
        print(f"  {stage:<14} {ir / n / 1e6:>9,.2f} M  {100 * ir / total:6.2f} %")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=".build/release")
    parser.add_argument("--photos", default=os.path.join(HERE, "..", "..", "shared", "corpus", "photos"))
    parser.add_argument("--json")
    args = parser.parse_args()
    for tool in ("valgrind", "callgrind_annotate", "nginx", "perf", "strip"):
        if not shutil.which(tool):
            sys.exit(f"profile_stages: {tool} is missing (apt-get install valgrind nginx-light)")
    photos = os.path.abspath(args.photos)
    with tempfile.TemporaryDirectory() as work:
        results = {"w2": profile_w2(args.build, photos, work), "prepare": profile_prepare(args.build, photos, work)}
    show("W2, fit in 2048, JPEG q85, one thread", results["w2"])
    show_perf("prepare of the photos (x10) over nginx, default threads", results["prepare"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


main()
