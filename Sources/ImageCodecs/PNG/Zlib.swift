internal import CDeflate
internal import CISAL

/// zlib streams (RFC 1950) for PNG's iCCP and iTXt chunks, through libdeflate: inflated with a
/// cap on the output, deflated in one call.
///
///     let profile = try Zlib.inflate(compressed, limit: 16 << 20)
///     let stream = Zlib.deflate(profile)
enum Zlib {
    struct Failure: Error { let message: String }

    /// Decompresses a zlib stream; fails on damage or when the output would pass `limit` bytes.
    ///
    /// libdeflate inflates in one call into a buffer of a given size: four times the input at
    /// first, doubled while it is too small, up to `limit`.
    ///
    /// - Complexity: O(output); at most `limit` bytes held, plus the input.
    static func inflate(_ data: ArraySlice<UInt8>, limit: Int) throws(Failure) -> [UInt8] {
        guard let decompressor = libdeflate_alloc_decompressor() else { throw Failure(message: "out of memory") }
        defer { libdeflate_free_decompressor(decompressor) }
        var capacity = min(limit, max(4 * data.count, 4096))
        while true {
            var actual = 0
            var output = [UInt8](repeating: 0, count: capacity)
            let result = data.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { out in
                    libdeflate_zlib_decompress(
                        decompressor, input.baseAddress, input.count, out.baseAddress, out.count, &actual)
                }
            }
            switch result {
            case LIBDEFLATE_SUCCESS:
                output.removeLast(capacity - actual)
                return output
            case LIBDEFLATE_INSUFFICIENT_SPACE:
                guard capacity < limit else { throw Failure(message: "inflated data over \(limit) bytes") }
                capacity = min(limit, 2 * capacity)
            default:
                throw Failure(message: "damaged or truncated zlib stream")
            }
        }
    }

    /// `bytes` as a zlib stream by ISA-L's level 1 (`isal_deflate_stateless`): twice libdeflate's
    /// level 1 speed on a photo's filtered rows (29 against 57 ms, 2048x1536) for 1.5 % more bytes.
    /// libdeflate's level 1 when ISA-L's output would not fit its bound (it does not store
    /// incompressible data as compactly).
    static func deflateFast(_ bytes: [UInt8]) -> [UInt8] {
        let bound = bytes.count + bytes.count / 8 + 1024
        var output = [UInt8](repeating: 0, count: bound)
        var levelBuffer = [UInt8](repeating: 0, count: Int(pa_isal_level1_buffer_bytes))
        let written: Int? = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                levelBuffer.withUnsafeMutableBytes { level in
                    var stream = isal_zstream()
                    isal_deflate_stateless_init(&stream)
                    stream.level = 1
                    stream.level_buf = level.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    stream.level_buf_size = UInt32(level.count)
                    stream.gzip_flag = UInt16(IGZIP_ZLIB)
                    stream.end_of_stream = 1
                    stream.flush = UInt16(NO_FLUSH)
                    stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
                    stream.avail_in = UInt32(input.count)
                    stream.next_out = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    stream.avail_out = UInt32(out.count)
                    guard isal_deflate_stateless(&stream) == COMP_OK else { return nil }
                    return Int(stream.total_out)
                }
            }
        }
        guard let written, bytes.count < Int(UInt32.max) else { return deflate(bytes, level: 1) }
        output.removeLast(bound - written)
        return output
    }

    /// `bytes` as a zlib stream at libdeflate's `level` (0 stores them, 12 is its smallest).
    static func deflate(_ bytes: [UInt8], level: Int32 = 9) -> [UInt8] {
        guard let compressor = libdeflate_alloc_compressor(level) else {
            preconditionFailure("libdeflate_alloc_compressor(\(level)) failed: out of memory or a bad level")
        }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_zlib_compress_bound(compressor, bytes.count)
        var output = [UInt8](repeating: 0, count: bound)
        let written = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                libdeflate_zlib_compress(compressor, input.baseAddress, input.count, out.baseAddress, out.count)
            }
        }
        // The bound is libdeflate's own worst case for this input: it always fits.
        precondition(written > 0, "libdeflate_zlib_compress wrote nothing into its own bound")
        output.removeLast(bound - written)
        return output
    }
}
