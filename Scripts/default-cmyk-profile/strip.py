#!/usr/bin/env python3
"""Copies an ICC profile without its characterization data (targ, DevD, CIED text tags).

    python3 strip.py in.icc out.icc

Tags that share data keep sharing it; each tag starts on a 4-byte boundary; the header's size
is updated and its profile ID cleared (a v2 profile carries none).
"""
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
drop = {b"targ", b"DevD", b"CIED"}
data = open(src, "rb").read()
count = struct.unpack(">I", data[128:132])[0]
tags = [struct.unpack(">4sII", data[132 + 12 * i:144 + 12 * i]) for i in range(count)]
keep = [t for t in tags if t[0] not in drop]
out = bytearray(data[:128]) + struct.pack(">I", len(keep)) + bytes(12 * len(keep))
placed = {}
for index, (signature, offset, size) in enumerate(keep):
    if (offset, size) not in placed:
        while len(out) % 4:
            out.append(0)
        placed[(offset, size)] = len(out)
        out += data[offset:offset + size]
    struct.pack_into(">4sII", out, 132 + 12 * index, signature, placed[(offset, size)], size)
while len(out) % 4:
    out.append(0)
struct.pack_into(">I", out, 0, len(out))
out[84:100] = bytes(16)
open(dst, "wb").write(out)
print(f"{len(data)} -> {len(out)} bytes", file=sys.stderr)
