internal import CDeflate

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
