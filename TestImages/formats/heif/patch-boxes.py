"""Rewrites the item structure of a small HEIF/AVIF file, to make test fixtures whose boxes
libheif's encoder cannot write (see make-size-fixtures.sh). Standard library only.

  python patch-boxes.py OP IN OUT [ARGS]

  ispe W H          the primary item's ispe says W x H (the coded stream is left as it is)
  iden N            the primary becomes an 'iden' of the old one, N levels deep
  pred              a copy of the primary, predicted from it ('pred' reference), becomes primary
  base TYPE         the primary gets a 'base' reference to a new item of TYPE (e.g. avc1)
  nclx FULL         adds an nclx colr property (BT.709/BT.709/BT.601, full_range_flag FULL) to the primary
  drop-colr         removes the primary's colr associations
  clap W H          adds a clap property cropping the primary to W x H (centred)
  grid ROWS COLS W H [ROT]   a ROWS x COLS grid of the primary (each tile the same data) with output
                    W x H (grid data in idat) becomes primary, with an irot of ROT quarter turns
"""
import struct
import sys


def boxes(data, start=0, end=None):
    end = len(data) if end is None else end
    i = start
    while i + 8 <= end:
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[i + 8:i + 16])[0]
            header = 16
        elif size == 0:
            size = end - i
        yield kind.decode("latin-1"), data[i + header:i + size], i
        i += size


def box(kind, body):
    return struct.pack(">I4s", 8 + len(body), kind.encode("latin-1")) + body


def full(version, flags=0):
    return struct.pack(">I", version << 24 | flags)


class Meta:
    def __init__(self, data):
        self.top = list(boxes(data))
        meta = next(b for k, b, _ in self.top if k == "meta")
        self.header = meta[:4]
        self.others = []  # (kind, body) kept as they are, in order (hdlr, ...)
        self.items = []  # (id, type)
        self.locations = {}  # id -> (method, [(offset, length)])
        self.props = []  # raw property boxes
        self.assoc = {}  # id -> [(essential, index from 1)]
        self.refs = []  # (type, from, [to])
        self.idat = b""
        self.data = data
        for kind, body, _ in boxes(meta, 4):
            if kind == "pitm":
                self.primary = struct.unpack(">H", body[4:6])[0]
            elif kind == "iinf":
                version = body[0]
                for k, infe, _ in boxes(body, 4 + (2 if version == 0 else 4)):
                    v = infe[0]
                    n = 2 if v == 2 else 4
                    item = int.from_bytes(infe[4:4 + n], "big")
                    self.items.append((item, infe[4 + n + 2:4 + n + 6].decode("latin-1")))
            elif kind == "iloc":
                self.read_iloc(body)
            elif kind == "iprp":
                for k, b, _ in boxes(body):
                    if k == "ipco":
                        self.props = [box(pk, pb) for pk, pb, _ in boxes(b)]
                    elif k == "ipma":
                        self.read_ipma(b)
            elif kind == "iref":
                version = body[0]
                n = 2 if version == 0 else 4
                for k, b, _ in boxes(body, 4):
                    frm = int.from_bytes(b[:n], "big")
                    count = struct.unpack(">H", b[n:n + 2])[0]
                    to = [int.from_bytes(b[n + 2 + j * n:n + 2 + (j + 1) * n], "big") for j in range(count)]
                    self.refs.append((k, frm, to))
            elif kind == "idat":
                self.idat = body
            else:
                self.others.append((kind, body))

    def read_iloc(self, body):
        version = body[0]
        sizes = struct.unpack(">H", body[4:6])[0]
        osz, lsz, bsz = sizes >> 12, (sizes >> 8) & 15, (sizes >> 4) & 15
        isz = sizes & 15 if version >= 1 else 0
        n = 2 if version < 2 else 4
        count = int.from_bytes(body[6:6 + n], "big")
        p = 6 + n
        rd = lambda at, size: int.from_bytes(body[at:at + size], "big")
        for _ in range(count):
            item = rd(p, n); p += n
            method = 0
            if version >= 1:
                method = rd(p, 2) & 15; p += 2
            p += 2
            base = rd(p, bsz); p += bsz
            extents = []
            for _ in range(rd(p, 2)):
                if not extents:
                    p += 2
                p += isz
                extents.append((base + rd(p, osz), rd(p + osz, lsz))); p += osz + lsz
            if not extents:
                p += 2
            self.locations[item] = (method, extents)

    def read_ipma(self, body):
        version, flags = body[0], body[3]
        count = struct.unpack(">I", body[4:8])[0]
        p = 8
        for _ in range(count):
            n = 2 if version < 1 else 4
            item = int.from_bytes(body[p:p + n], "big"); p += n
            k = body[p]; p += 1
            entries = []
            for _ in range(k):
                if flags & 1:
                    v = struct.unpack(">H", body[p:p + 2])[0]; p += 2
                    entries.append((v >> 15, v & 0x7FFF))
                else:
                    v = body[p]; p += 1
                    entries.append((v >> 7, v & 0x7F))
            self.assoc[item] = entries

    def new_id(self):
        return max(i for i, _ in self.items) + 1

    def add_prop(self, raw):
        self.props.append(raw)
        return len(self.props)

    def serialize(self):
        def meta_bytes(shift):
            out = self.header
            for kind, body in self.others:
                out += box(kind, body)
            out += box("pitm", full(0) + struct.pack(">H", self.primary))
            infes = b"".join(box("infe", full(2) + struct.pack(">HH4s", i, 0, t.encode("latin-1")) + b"\0")
                             for i, t in self.items)
            out += box("iinf", full(0) + struct.pack(">H", len(self.items)) + infes)
            iloc = full(1) + struct.pack(">HH", 0x4400, len(self.locations))
            for item, (method, extents) in sorted(self.locations.items()):
                iloc += struct.pack(">HHHH", item, method, 0, len(extents))
                for off, length in extents:
                    iloc += struct.pack(">II", off + (shift if method == 0 else 0), length)
            out += box("iloc", iloc)
            ipma = full(0) + struct.pack(">I", len(self.assoc))
            for item, entries in sorted(self.assoc.items()):
                ipma += struct.pack(">HB", item, len(entries)) + bytes(e << 7 | i for e, i in entries)
            out += box("iprp", box("ipco", b"".join(self.props)) + box("ipma", ipma))
            if self.refs:
                out += box("iref", full(0) + b"".join(
                    box(k, struct.pack(">HH", f, len(t)) + b"".join(struct.pack(">H", x) for x in t))
                    for k, f, t in self.refs))
            if self.idat:
                out += box("idat", self.idat)
            return box("meta", out)

        # Data offsets move by however much the boxes before mdat grew.
        old_mdat = next(at for k, _, at in self.top if k == "mdat")
        before = b""
        for k, b, at in self.top:
            if k == "mdat":
                break
            before += meta_bytes(0) if k == "meta" else self.data[at:at + 8 + len(b)]
        shift = len(before) - old_mdat
        out = b""
        for k, b, at in self.top:
            out += meta_bytes(shift) if k == "meta" else self.data[at:at + 8 + len(b)]
        return out


def ispe(w, h):
    return box("ispe", full(0) + struct.pack(">II", w, h))


def main():
    op, src, dst, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    data = open(src, "rb").read()
    if op == "ispe":
        # In place: the primary's ispe is the first (only) one in these single-image files.
        at = data.find(b"ispe")
        assert at > 0 and data.find(b"ispe", at + 4) < 0
        data = data[:at + 8] + struct.pack(">II", int(args[0]), int(args[1])) + data[at + 16:]
        open(dst, "wb").write(data)
        return
    m = Meta(data)
    p = m.primary
    size = next(m.props[i - 1] for _, i in m.assoc[p] if m.props[i - 1][4:8] == b"ispe")
    if op == "iden":
        for _ in range(int(args[0])):
            new = m.new_id()
            m.items.append((new, "iden"))
            m.refs.append(("dimg", new, [m.primary]))
            m.assoc[new] = [(0, m.add_prop(size))]
            m.primary = new
    elif op == "pred":
        new = m.new_id()
        m.items.append((new, dict(m.items)[p]))
        m.locations[new] = m.locations[p]
        m.assoc[new] = list(m.assoc[p])
        m.refs.append(("pred", new, [p]))
        m.primary = new
    elif op == "base":
        new = m.new_id()
        m.items.append((new, args[0]))
        m.locations[new] = m.locations[p]
        m.refs.append(("base", p, [new]))
    elif op == "nclx":
        colr = box("colr", b"nclx" + struct.pack(">HHHB", 1, 1, 6, 0x80 if int(args[0]) else 0))
        m.assoc[p].append((0, m.add_prop(colr)))
    elif op == "drop-colr":
        m.assoc[p] = [(e, i) for e, i in m.assoc[p] if m.props[i - 1][4:8] != b"colr"]
    elif op == "clap":
        w, h = int(args[0]), int(args[1])
        clap = box("clap", struct.pack(">IIIIiIiI", w, 1, h, 1, 0, 1, 0, 1))
        m.assoc[p].append((1, m.add_prop(clap)))
    elif op == "grid":
        rows, cols, w, h = map(int, args[:4])
        turns = int(args[4]) if len(args) > 4 else 0
        tiles = [p]
        for _ in range(rows * cols - 1):
            new = m.new_id()
            m.items.append((new, dict(m.items)[p]))
            m.locations[new] = m.locations[p]
            m.assoc[new] = list(m.assoc[p])
            tiles.append(new)
        grid = m.new_id()
        m.items.append((grid, "grid"))
        m.locations[grid] = (1, [(len(m.idat), 8)])
        m.idat += struct.pack(">BBBBHH", 0, 0, rows - 1, cols - 1, w, h)
        m.refs.append(("dimg", grid, tiles))
        m.assoc[grid] = [(0, m.add_prop(ispe(w, h)))]
        if turns:
            m.assoc[grid].append((1, m.add_prop(box("irot", bytes([turns & 3])))))
        m.primary = grid
    else:
        sys.exit(f"unknown operation {op}")
    open(dst, "wb").write(m.serialize())


if __name__ == "__main__":
    main()
