/// Big-endian reads and box walking over the untrusted bytes of an ISO base media file (HEIF,
/// AVIF). Every read is bounds-checked and returns nil past the end; nothing here can trap.
///
///     let reader = ISOBoxReader(bytes)
///     let meta = try reader.first("meta", in: 0..<bytes.count)   // its body, after the header
///     reader.u32(meta!.body.lowerBound)                          // version and flags
package struct ISOBoxReader {
    package let bytes: UnsafeRawBufferPointer

    package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// One box: its type and its body (after the 8- or 16-byte header; a full box's version and
    /// flags are the first 4 bytes of the body).
    package struct Box {
        package let type: String
        package let body: Range<Int>
    }

    /// The most boxes walked among one set of siblings; a file with more is refused.
    static let maximumBoxes = 4096

    package func u8(_ at: Int) -> Int? { at >= 0 && at < bytes.count ? Int(bytes[at]) : nil }
    package func u16(_ at: Int) -> Int? {
        guard let a = u8(at), let b = u8(at + 1) else { return nil }
        return a << 8 | b
    }
    package func u32(_ at: Int) -> Int? {
        guard let a = u16(at), let b = u16(at + 2) else { return nil }
        return a << 16 | b
    }
    /// A big-endian unsigned integer of `size` bytes (0, 2, 4 or 8; 0 reads as 0); nil past the
    /// end or above `Int32.max` for 8 bytes (no file here is that large).
    package func uint(_ at: Int, size: Int) -> Int? {
        switch size {
        case 0: return 0
        case 2: return u16(at)
        case 4: return u32(at)
        case 8:
            guard let high = u32(at), let low = u32(at + 4), high == 0, low <= Int(Int32.max) else { return nil }
            return low
        default: return nil
        }
    }
    package func fourCC(_ at: Int) -> String? {
        guard at >= 0, at + 4 <= bytes.count else { return nil }
        return String(decoding: bytes[at..<(at + 4)], as: Unicode.ASCII.self)
    }

    /// The sibling boxes in `range`, in order.
    ///
    /// - Throws: `.damaged` naming `parent` when a box header is cut short or a box claims more
    ///   bytes than its parent has, or when there are more than 4096 boxes.
    package func boxes(in range: Range<Int>, parent: String) throws(HEIFStructureError) -> [Box] {
        var found: [Box] = []
        var i = range.lowerBound
        while i < range.upperBound {
            guard found.count < Self.maximumBoxes else { throw .damaged("'\(parent)' holds more than 4096 boxes") }
            guard i + 8 <= range.upperBound, var size = u32(i), let type = fourCC(i + 4) else {
                throw .damaged("a box header in '\(parent)' at byte \(i) is cut short")
            }
            var header = 8
            if size == 1 {
                guard let large = uint(i + 8, size: 8) else {
                    throw .damaged("box '\(type)' in '\(parent)' at byte \(i) has an unusable 64-bit size")
                }
                size = large
                header = 16
            } else if size == 0 {
                size = range.upperBound - i
            }
            guard size >= header, size <= range.upperBound - i else {
                throw .damaged(
                    "box '\(type)' in '\(parent)' at byte \(i) claims \(size) bytes, past the end of its parent")
            }
            found.append(Box(type: type, body: (i + header)..<(i + size)))
            i += size
        }
        return found
    }

    /// The first box of `type` among the siblings in `range`; nil when there is none.
    package func first(_ type: String, in range: Range<Int>, parent: String) throws(HEIFStructureError) -> Box? {
        try boxes(in: range, parent: parent).first { $0.type == type }
    }
}
