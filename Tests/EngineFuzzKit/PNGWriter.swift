import Foundation
import ImageCodecs

/// A PNG writer simple enough to be trivially right: stored (uncompressed) deflate blocks, CRC-32
/// and Adler-32 by the book, filter 0 on every row. It covers what libpng's simplified writer
/// does not: 16-bit samples, Adam7 interlacing, palettes of 1, 2, 4 or 8 bits with tRNS, grey
/// with and without alpha.
///
///     let png = PNGWriter.write(rgba, sixteenBit: false, interlaced: true, indexed: true, seed: 1)
enum PNGWriter {
    /// `rgba` as the smallest colour type that holds it exactly: palette (when `indexed` and at
    /// most 256 RGBA values), grey or grey+alpha (when every pixel is grey), else RGB or RGBA;
    /// alpha only when some pixel is not opaque. 16-bit samples are `v * 257` moved by up to
    /// ±100 (seeded), so any rounding back to 8 bits lands on `v` or next to it.
    static func write(_ rgba: PixelBuffer, sixteenBit: Bool, interlaced: Bool, indexed: Bool, seed: UInt64) -> Data {
        let w = rgba.width, h = rgba.height
        let px = rgba.bytes
        var hasAlpha = false, isGray = true
        var lookup: [UInt32: Int] = [:]
        var entries: [UInt32] = []
        for p in 0..<(w * h) {
            let o = p * 4
            if px[o + 3] != 255 { hasAlpha = true }
            if px[o] != px[o + 1] || px[o] != px[o + 2] { isGray = false }
            if indexed, entries.count <= 256 {
                let key = UInt32(px[o]) << 24 | UInt32(px[o + 1]) << 16 | UInt32(px[o + 2]) << 8 | UInt32(px[o + 3])
                if lookup[key] == nil {
                    lookup[key] = entries.count
                    entries.append(key)
                }
            }
        }
        let palette = indexed && entries.count <= 256
        let colorType: UInt8 = palette ? 3 : isGray ? (hasAlpha ? 4 : 0) : (hasAlpha ? 6 : 2)
        let depth: Int =
            palette
            ? (entries.count <= 2 ? 1 : entries.count <= 4 ? 2 : entries.count <= 16 ? 4 : 8) : (sixteenBit ? 16 : 8)
        var random = CaseRandom(seed: seed ^ 0x16B1)

        // 16-bit: `v * 257` moved by up to ±100, 0 and 255 kept exact.
        func wide(_ v: UInt8) -> Int {
            if v == 0 || v == 255 { return Int(v) * 257 }
            return min(65535, max(0, Int(v) * 257 + random.int(-100...100)))
        }
        // The channels written, by colour type: offsets into an RGBA pixel.
        let channels: [Int] =
            switch colorType {
            case 0: [0]
            case 4: [0, 3]
            case 2: [0, 1, 2]
            default: [0, 1, 2, 3]
            }

        // Scanlines of the (sub)image of pixels (x0 + k*dx, y0 + j*dy).
        var raw: [UInt8] = []
        func scanlines(x0: Int, y0: Int, dx: Int, dy: Int) {
            let cols = x0 < w ? (w - x0 + dx - 1) / dx : 0
            let rows = y0 < h ? (h - y0 + dy - 1) / dy : 0
            guard cols > 0, rows > 0 else { return }
            for j in 0..<rows {
                raw.append(0)  // filter: none
                var acc = 0, bits = 0
                for k in 0..<cols {
                    let o = ((y0 + j * dy) * w + x0 + k * dx) * 4
                    if palette {
                        let key =
                            UInt32(px[o]) << 24 | UInt32(px[o + 1]) << 16 | UInt32(px[o + 2]) << 8 | UInt32(px[o + 3])
                        acc = acc << depth | lookup[key]!
                        bits += depth
                        if bits == 8 {
                            raw.append(UInt8(acc))
                            acc = 0
                            bits = 0
                        }
                    } else if depth == 16 {
                        for c in channels {
                            let v = wide(px[o + c])
                            raw.append(UInt8(v >> 8))
                            raw.append(UInt8(v & 0xFF))
                        }
                    } else {
                        for c in channels { raw.append(px[o + c]) }
                    }
                }
                if bits > 0 { raw.append(UInt8(acc << (8 - bits))) }
            }
        }
        if interlaced {
            for (x0, y0, dx, dy) in [
                (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
            ] {
                scanlines(x0: x0, y0: y0, dx: dx, dy: dy)
            }
        } else {
            scanlines(x0: 0, y0: 0, dx: 1, dy: 1)
        }

        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        chunk("IHDR", be32(w) + be32(h) + [UInt8(depth), colorType, 0, 0, interlaced ? 1 : 0], into: &out)
        if palette {
            chunk(
                "PLTE", entries.flatMap { [UInt8($0 >> 24), UInt8($0 >> 16 & 0xFF), UInt8($0 >> 8 & 0xFF)] }, into: &out
            )
            var alphas = entries.map { UInt8($0 & 0xFF) }
            while alphas.last == 255 { alphas.removeLast() }
            if !alphas.isEmpty { chunk("tRNS", alphas, into: &out) }
        }
        let stream = zlibStored(raw)
        // IDAT split in chunks of at most 64 KB, as encoders do.
        var offset = 0
        repeat {
            let end = min(stream.count, offset + 65536)
            chunk("IDAT", Array(stream[offset..<end]), into: &out)
            offset = end
        } while offset < stream.count
        chunk("IEND", [], into: &out)
        return out
    }

    static func zlibStored(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, raw.count - offset)
            let final: UInt8 = offset + n == raw.count ? 1 : 0
            out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += raw[offset..<(offset + n)]
            offset += n
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + be32(Int(b << 16 | a))
    }

    static func chunk(_ type: String, _ body: [UInt8], into out: inout Data) {
        let typeBytes = Array(type.utf8)
        out.append(contentsOf: be32(body.count))
        out.append(contentsOf: typeBytes)
        out.append(contentsOf: body)
        out.append(contentsOf: be32(Int(crc32(typeBytes + body))))
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    static func be32(_ v: Int) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
}
