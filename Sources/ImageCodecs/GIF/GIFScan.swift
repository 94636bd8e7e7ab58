/// What a GIF's block stream says before any LZW data is decoded: the logical screen, the
/// frame count, every frame's delay and the NETSCAPE2.0 loop count. One pass over the
/// extensions, image descriptors and data sub-blocks, skipping the LZW bytes.
///
///     let scan = GIFScan(bytes)   // scan.frames, scan.totalCentiseconds, scan.loopCount
///
/// MediaTypes' `GIFHeader` walks the same blocks to count frames for sniffing; this walk also
/// reads the delays and the loop count the decoder needs, and records where the stream is cut.
struct GIFScan {
    var width = 0
    var height = 0
    var frames = 0
    var totalCentiseconds = 0
    /// Plays of the animation: 0 forever, 1 when the file has no NETSCAPE2.0 block, else its
    /// repetition count + 1 (the count is repetitions after the first play, as browsers read it).
    var loopCount = 1
    /// Why the walk stopped early (truncation, a bad introducer); nil for a clean stream.
    var damage: String?

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        guard n >= 13 else {
            damage = "the file ends inside the logical screen descriptor"
            return
        }
        width = Int(bytes[6]) | Int(bytes[7]) << 8
        height = Int(bytes[8]) | Int(bytes[9]) << 8
        var i = 13 + Self.colorTableSize(bytes[10])
        var delay = 0
        /// Offset past the sub-block chain at `start`, or nil when it runs off the end.
        func skip(_ start: Int) -> Int? {
            var j = start
            while j < n {
                let size = Int(bytes[j])
                j += 1 + size
                if size == 0 { return j }
            }
            return nil
        }
        while true {
            guard i < n else {
                // A stream that ends cleanly after a whole image, without the trailer, is common.
                if frames == 0 || i > n { damage = "the block stream ends at byte \(n) without a trailer" }
                return
            }
            switch bytes[i] {
            case 0x3B:
                return
            case 0x21:
                guard i + 1 < n else { damage = "an extension is cut short at byte \(i)"; return }
                let label = bytes[i + 1]
                if label == 0xF9, i + 6 < n, bytes[i + 2] >= 4 {
                    delay = Int(bytes[i + 4]) | Int(bytes[i + 5]) << 8
                } else if label == 0xFF, i + 2 < n, bytes[i + 2] == 11, i + 18 < n {
                    let id = String(decoding: UnsafeBufferPointer(rebasing: bytes[(i + 3)..<(i + 14)]), as: UTF8.self)
                    if id == "NETSCAPE2.0" || id == "ANIMEXTS1.0", bytes[i + 14] >= 3, bytes[i + 15] == 1 {
                        let repetitions = Int(bytes[i + 16]) | Int(bytes[i + 17]) << 8
                        loopCount = repetitions == 0 ? 0 : repetitions + 1
                    }
                }
                guard let next = skip(i + 2) else { damage = "an extension runs past the end at byte \(i)"; return }
                i = next
            case 0x2C:
                frames += 1
                totalCentiseconds += delay
                delay = 0
                guard i + 9 < n else { damage = "image descriptor \(frames) is cut short at byte \(i)"; return }
                guard let next = skip(i + 10 + Self.colorTableSize(bytes[i + 9]) + 1) else {
                    damage = "the image data of frame \(frames) runs past the end of the file"
                    return
                }
                i = next
            default:
                damage = "unexpected block introducer 0x\(String(bytes[i], radix: 16)) at byte \(i)"
                return
            }
        }
    }

    static func colorTableSize(_ packed: UInt8) -> Int {
        packed & 0x80 != 0 ? 3 << (Int(packed & 0x07) + 1) : 0
    }
}
