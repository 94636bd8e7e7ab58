import Foundation

/// Bounds-checked reads over untrusted bytes. Every read either returns a value inside the
/// buffer or throws `ByteReader.OutOfBounds`; nothing here can trap on hostile input.
///
///     var r = ByteReader(bytes)
///     let tag = try r.readUInt16(.big)
///     try r.skip(4)
package struct ByteReader: Sendable {
    package enum Endian: Sendable { case big, little }

    /// Thrown when a read would pass the end of the bytes.
    package struct OutOfBounds: Error, Sendable, Equatable, CustomStringConvertible {
        package let offset: Int
        package let wanted: Int
        package let available: Int
        package var description: String {
            "wanted \(wanted) bytes at offset \(offset), only \(available) available"
        }
    }

    package let bytes: [UInt8]
    /// Current read position, from the start of `bytes`.
    package var offset: Int

    package init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    package init(_ data: Data, offset: Int = 0) { self.init([UInt8](data), offset: offset) }

    package var count: Int { bytes.count }
    package var remaining: Int { max(0, bytes.count - offset) }
    package var isAtEnd: Bool { offset >= bytes.count }

    /// Throws unless `n` bytes are available at `at`.
    @inline(__always)
    package func require(_ n: Int, at: Int) throws(OutOfBounds) {
        guard n >= 0, at >= 0, at <= bytes.count, n <= bytes.count - at else {
            throw OutOfBounds(offset: at, wanted: n, available: max(0, bytes.count - max(0, at)))
        }
    }

    package func uint8(at i: Int) throws(OutOfBounds) -> UInt8 {
        try require(1, at: i)
        return bytes[i]
    }

    package func uint16(at i: Int, _ endian: Endian) throws(OutOfBounds) -> UInt16 {
        try require(2, at: i)
        let a = UInt16(bytes[i]), b = UInt16(bytes[i + 1])
        return endian == .big ? a << 8 | b : b << 8 | a
    }

    package func uint24(at i: Int, _ endian: Endian) throws(OutOfBounds) -> UInt32 {
        try require(3, at: i)
        let a = UInt32(bytes[i]), b = UInt32(bytes[i + 1]), c = UInt32(bytes[i + 2])
        return endian == .big ? a << 16 | b << 8 | c : c << 16 | b << 8 | a
    }

    package func uint32(at i: Int, _ endian: Endian) throws(OutOfBounds) -> UInt32 {
        try require(4, at: i)
        let a = UInt32(bytes[i]), b = UInt32(bytes[i + 1]), c = UInt32(bytes[i + 2]), d = UInt32(bytes[i + 3])
        return endian == .big ? a << 24 | b << 16 | c << 8 | d : d << 24 | c << 16 | b << 8 | a
    }

    package func uint64(at i: Int, _ endian: Endian) throws(OutOfBounds) -> UInt64 {
        let hi = UInt64(try uint32(at: endian == .big ? i : i + 4, endian))
        let lo = UInt64(try uint32(at: endian == .big ? i + 4 : i, endian))
        return hi << 32 | lo
    }

    /// `n` bytes at `i`, as a slice of the underlying array.
    package func slice(at i: Int, count n: Int) throws(OutOfBounds) -> ArraySlice<UInt8> {
        try require(n, at: i)
        return bytes[i..<(i + n)]
    }

    /// True when the bytes at `i` equal `prefix` (false when too short).
    package func matches(_ prefix: [UInt8], at i: Int = 0) -> Bool {
        guard i >= 0, prefix.count <= bytes.count - min(i, bytes.count), i <= bytes.count else { return false }
        for (k, b) in prefix.enumerated() where bytes[i + k] != b { return false }
        return true
    }

    /// An ASCII string of `n` bytes at `i` (e.g. a four-character code), for comparing with
    /// known names. Raw: control bytes are kept and bytes over 0x7F become U+FFFD, so never put
    /// it in a message; `displayText(at:count:)` is for that.
    package func ascii(at i: Int, count n: Int) throws(OutOfBounds) -> String {
        String(decoding: try slice(at: i, count: n), as: Unicode.ASCII.self)
    }

    /// Up to `n` bytes at `i` as text safe to show: control, invisible and non-UTF-8 bytes
    /// escaped (`DisplayText.escaped(bytes:)`). For a four-character code in an error message.
    ///
    ///     ByteReader([0x1B, 0x5B, 0x32, 0x4A]).displayText(at: 0, count: 4)   // #"\u{1B}[2J"#
    package func displayText(at i: Int, count n: Int) -> String {
        guard i >= 0, i < bytes.count, n > 0 else { return "" }
        return DisplayText.escaped(bytes: bytes[i..<(i + min(n, bytes.count - i))])
    }

    // Sequential reads from `offset`.

    package mutating func readUInt8() throws(OutOfBounds) -> UInt8 {
        let v = try uint8(at: offset); offset += 1; return v
    }

    package mutating func readUInt16(_ endian: Endian) throws(OutOfBounds) -> UInt16 {
        let v = try uint16(at: offset, endian); offset += 2; return v
    }

    package mutating func readUInt32(_ endian: Endian) throws(OutOfBounds) -> UInt32 {
        let v = try uint32(at: offset, endian); offset += 4; return v
    }

    package mutating func readBytes(_ n: Int) throws(OutOfBounds) -> ArraySlice<UInt8> {
        let v = try slice(at: offset, count: n); offset += n; return v
    }

    package mutating func skip(_ n: Int) throws(OutOfBounds) {
        try require(n, at: offset)
        offset += n
    }
}
