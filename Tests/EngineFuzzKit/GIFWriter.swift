import Foundation
import ImageCodecs

/// A GIF89a writer byte by byte (not giflib, not our `GIFEncoder`, whose full-palette handling is
/// one of the things under test): frame 0 over the whole canvas with the global table, each later
/// frame as the rectangle that changed, with a local table of exactly the colours it uses, alpha 0
/// as the transparent index, disposal "leave in place". The LZW stream is "uncompressed": 9-bit
/// codes, one per pixel, a clear code every 250 codes, which every decoder reads.
///
///     let gif = GIFWriter.write(frames, durations: [100, 100])
///
/// The frames must keep their transparency from frame to frame (a transparent index means "leave
/// the pixel as it was") and use at most 256 entries per rectangle, transparency included:
/// `SourceFrames` makes them so.
enum GIFWriter {
    static func write(_ frames: [PixelBuffer], durations: [Int]) -> Data {
        let width = frames[0].width, height = frames[0].height
        var out = Data("GIF89a".utf8)
        out.append(contentsOf: le16(width) + le16(height))
        // No global table: every frame carries its own (frame 0's is as good as a global one).
        out.append(contentsOf: [0x00, 0, 0])
        out.append(contentsOf: [0x21, 0xFF, 0x0B])
        out.append(Data("NETSCAPE2.0".utf8))
        out.append(contentsOf: [0x03, 0x01, 0x00, 0x00, 0x00])
        for (k, frame) in frames.enumerated() {
            let rect = k == 0 ? (x: 0, y: 0, w: width, h: height) : changedRect(frame, frames[k - 1])
            appendFrame(frame, rect: rect, delay: (durations[k] + 5) / 10, to: &out)
        }
        out.append(0x3B)
        return out
    }

    /// The bounding box of the pixels that differ (alpha 0 pixels compare equal whatever their
    /// colour); one pixel when none does.
    static func changedRect(_ frame: PixelBuffer, _ previous: PixelBuffer) -> (x: Int, y: Int, w: Int, h: Int) {
        let width = frame.width
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for y in 0..<frame.height {
            for x in 0..<width {
                let o = (y * width + x) * 4
                let a = frame.bytes[o + 3], b = previous.bytes[o + 3]
                let same = a == b && (a == 0 || frame.bytes[o..<(o + 3)] == previous.bytes[o..<(o + 3)])
                if !same {
                    minX = min(minX, x)
                    maxX = max(maxX, x)
                    minY = min(minY, y)
                    maxY = max(maxY, y)
                }
            }
        }
        if maxX < 0 { return (0, 0, 1, 1) }
        return (minX, minY, maxX - minX + 1, maxY - minY + 1)
    }

    static func appendFrame(
        _ frame: PixelBuffer, rect: (x: Int, y: Int, w: Int, h: Int), delay: Int, to out: inout Data
    ) {
        let width = frame.width
        var lookup: [UInt32: Int] = [:]
        var palette: [UInt8] = []
        var transparent: Int? = nil
        var indices: [Int] = []
        indices.reserveCapacity(rect.w * rect.h)
        for y in rect.y..<(rect.y + rect.h) {
            for x in rect.x..<(rect.x + rect.w) {
                let o = (y * width + x) * 4
                if frame.bytes[o + 3] < 128 {
                    if transparent == nil {
                        transparent = palette.count / 3
                        palette += [0, 0, 0]
                    }
                    indices.append(transparent!)
                    continue
                }
                let key = UInt32(frame.bytes[o]) << 16 | UInt32(frame.bytes[o + 1]) << 8 | UInt32(frame.bytes[o + 2])
                if let index = lookup[key] {
                    indices.append(index)
                } else {
                    let index = palette.count / 3
                    precondition(index < 256, "GIFWriter: a frame rectangle needs more than 256 entries")
                    lookup[key] = index
                    palette += [frame.bytes[o], frame.bytes[o + 1], frame.bytes[o + 2]]
                    indices.append(index)
                }
            }
        }
        while palette.count < 256 * 3 { palette.append(0) }
        // Graphic control: disposal 1 (leave in place), the transparent index if any.
        out.append(contentsOf: [0x21, 0xF9, 0x04, 0x04 | (transparent == nil ? 0 : 1)])
        out.append(contentsOf: le16(min(65535, delay)) + [UInt8(transparent ?? 0), 0x00])
        out.append(0x2C)
        out.append(contentsOf: le16(rect.x) + le16(rect.y) + le16(rect.w) + le16(rect.h) + [0x87])
        out.append(contentsOf: palette)
        out.append(0x08)  // LZW minimum code size
        var bits = BitPacker()
        bits.write(256)
        var sinceClear = 0
        for index in indices {
            if sinceClear == 250 {
                bits.write(256)
                sinceClear = 0
            }
            bits.write(index)
            sinceClear += 1
        }
        bits.write(257)
        let stream = bits.finish()
        var offset = 0
        while offset < stream.count {
            let n = min(255, stream.count - offset)
            out.append(UInt8(n))
            out.append(contentsOf: stream[offset..<(offset + n)])
            offset += n
        }
        out.append(0x00)
    }

    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }

    /// 9-bit codes, least significant bit first.
    struct BitPacker {
        var bytes: [UInt8] = []
        var acc = 0, count = 0
        mutating func write(_ code: Int) {
            acc |= code << count
            count += 9
            while count >= 8 {
                bytes.append(UInt8(acc & 0xFF))
                acc >>= 8
                count -= 8
            }
        }
        mutating func finish() -> [UInt8] {
            if count > 0 { bytes.append(UInt8(acc & 0xFF)) }
            return bytes
        }
    }
}
