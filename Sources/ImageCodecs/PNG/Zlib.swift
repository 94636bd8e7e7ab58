/// Just enough zlib (RFC 1950/1951) for PNG iCCP chunks, so profiles cross between PNG and
/// JPEG without a zlib dependency: a small bounds-checked inflater (after Mark Adler's puff)
/// and a writer that emits stored (uncompressed) deflate blocks.
///
///     let profile = try Zlib.inflate(compressed, limit: 16 << 20)
///     let stream = Zlib.stored(profile)   // valid zlib, no compression
enum Zlib {
    struct Failure: Error { let message: String }

    /// Decompresses a zlib stream; fails on damage or when the output would pass `limit` bytes.
    static func inflate(_ data: ArraySlice<UInt8>, limit: Int) throws(Failure) -> [UInt8] {
        let bytes = Array(data)
        guard bytes.count >= 6 else { throw Failure(message: "zlib stream too short") }
        let cmf = Int(bytes[0]), flg = Int(bytes[1])
        guard cmf & 0x0F == 8, (cmf << 8 | flg) % 31 == 0, flg & 0x20 == 0 else {
            throw Failure(message: "not a zlib deflate stream")
        }
        var inflater = Inflater(bytes: bytes, position: 2, limit: limit)
        try inflater.run()
        let end = inflater.position
        guard end + 4 <= bytes.count else { throw Failure(message: "zlib stream truncated before its checksum") }
        let stored =
            UInt32(bytes[end]) << 24 | UInt32(bytes[end + 1]) << 16 | UInt32(bytes[end + 2]) << 8
            | UInt32(bytes[end + 3])
        guard adler32(inflater.output) == stored else { throw Failure(message: "zlib checksum mismatch") }
        return inflater.output
    }

    /// A zlib stream holding `bytes` in stored deflate blocks.
    static func stored(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        out.reserveCapacity(bytes.count + bytes.count / 65_535 * 5 + 16)
        var start = 0
        repeat {
            let end = min(bytes.count, start + 65_535)
            let n = end - start
            out.append(end == bytes.count ? 1 : 0)
            out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += bytes[start..<end]
            start = end
        } while start < bytes.count
        let a = adler32(bytes)
        out += [UInt8(a >> 24), UInt8((a >> 16) & 0xFF), UInt8((a >> 8) & 0xFF), UInt8(a & 0xFF)]
        return out
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }
}
