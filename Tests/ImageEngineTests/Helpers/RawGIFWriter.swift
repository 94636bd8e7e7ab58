import Foundation
import TestSupport

/// Writes GIFs byte by byte, without giflib or our encoder, for inputs too large to commit (a GIF
/// over 10 MB) or odd by design (301 frames).
///
///     let gif = RawGIFWriter.noise(width: 640, height: 480, frames: 30, seed: 7)   // 10.5 MB
///
/// The LZW stream is "uncompressed": 9-bit codes, one per pixel, a clear code every 250 codes
/// so the code size never grows. Every decoder reads it; it costs 9/8 byte a pixel whatever the
/// content, so the size is known before writing (and seeded noise keeps our re-encode from
/// compressing it much either).
enum RawGIFWriter {
    /// One frame: palette indices, row by row, and its delay in centiseconds.
    struct Frame {
        var indices: [UInt8]
        var delayCentiseconds: Int
    }

    /// A GIF89a of `width` x `height` with a 256-colour global palette (a colour ramp), the
    /// NETSCAPE2.0 loop count, and `frames` full-canvas frames of seeded noise in `block` x
    /// `block` squares (1: every pixel its own colour).
    static func noise(
        width: Int, height: Int, frames: Int, seed: UInt64, block: Int = 1, delayCentiseconds: Int = 10
    ) -> Data {
        var random = SplitMix64(seed: seed)
        var data = header(width: width, height: height, loopCount: 0)
        for _ in 0..<frames {
            var indices = [UInt8](repeating: 0, count: width * height)
            for by in stride(from: 0, to: height, by: block) {
                for bx in stride(from: 0, to: width, by: block) {
                    let value = UInt8(truncatingIfNeeded: random.next())
                    for y in by..<min(by + block, height) {
                        for x in bx..<min(bx + block, width) { indices[y * width + x] = value }
                    }
                }
            }
            append(Frame(indices: indices, delayCentiseconds: delayCentiseconds), width: width, height: height, to: &data)
        }
        data.append(0x3B)
        return data
    }

    /// A GIF of `frames` frames of one flat colour each (index = frame number mod 256).
    static func flat(width: Int, height: Int, frames: Int, delayCentiseconds: Int = 5) -> Data {
        var data = header(width: width, height: height, loopCount: 0)
        for i in 0..<frames {
            let indices = [UInt8](repeating: UInt8(i % 256), count: width * height)
            append(Frame(indices: indices, delayCentiseconds: delayCentiseconds), width: width, height: height, to: &data)
        }
        data.append(0x3B)
        return data
    }

    static func header(width: Int, height: Int, loopCount: Int) -> Data {
        var data = Data("GIF89a".utf8)
        data.append(contentsOf: le16(width) + le16(height))
        data.append(contentsOf: [0xF7, 0, 0])  // global table of 256, 8-bit resolution
        for i in 0..<256 { data.append(contentsOf: [UInt8(i), UInt8(255 - i), UInt8((i * 7) & 0xFF)]) }
        data.append(contentsOf: [0x21, 0xFF, 0x0B])
        data.append(Data("NETSCAPE2.0".utf8))
        data.append(contentsOf: [0x03, 0x01] + le16(loopCount) + [0x00])
        return data
    }

    static func append(_ frame: Frame, width: Int, height: Int, to data: inout Data) {
        // Graphic control: disposal 1 (leave in place), no transparency.
        data.append(contentsOf: [0x21, 0xF9, 0x04, 0x04] + le16(frame.delayCentiseconds) + [0x00, 0x00])
        data.append(0x2C)
        data.append(contentsOf: le16(0) + le16(0) + le16(width) + le16(height) + [0x00])
        data.append(0x08)  // LZW minimum code size
        var bits = BitPacker()
        let clear = 256, end = 257
        bits.write(clear)
        var sinceClear = 0
        for index in frame.indices {
            if sinceClear == 250 {
                bits.write(clear)
                sinceClear = 0
            }
            bits.write(Int(index))
            sinceClear += 1
        }
        bits.write(end)
        let stream = bits.finish()
        var offset = 0
        while offset < stream.count {
            let n = min(255, stream.count - offset)
            data.append(UInt8(n))
            data.append(contentsOf: stream[offset..<offset + n])
            offset += n
        }
        data.append(0x00)
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }

    /// 9-bit codes, least significant bit first, as GIF's LZW packs them.
    private struct BitPacker {
        var bytes: [UInt8] = []
        var accumulator = 0
        var count = 0

        mutating func write(_ code: Int) {
            accumulator |= code << count
            count += 9
            while count >= 8 {
                bytes.append(UInt8(accumulator & 0xFF))
                accumulator >>= 8
                count -= 8
            }
        }

        mutating func finish() -> [UInt8] {
            if count > 0 { bytes.append(UInt8(accumulator & 0xFF)) }
            return bytes
        }
    }
}
