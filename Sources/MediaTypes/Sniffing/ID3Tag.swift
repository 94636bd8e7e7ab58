/// An ID3v2 tag at the start of an MP3, skipped by its syncsafe size.
///
///     ID3Tag.end(of: bytes)  // offset of the first byte after the tag (and its footer)
enum ID3Tag {
    /// Offset just past the tag, or `nil` when the 10-byte header is not a valid ID3v2 header.
    static func end(of bytes: [UInt8]) -> Int? {
        guard bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33,
            bytes[3] != 0xFF, bytes[4] != 0xFF, bytes[6...9].allSatisfy({ $0 < 0x80 })
        else { return nil }
        let size = bytes[6...9].reduce(0) { $0 << 7 | Int($1) }
        let footer = bytes[5] & 0x10 != 0 ? 10 : 0
        return 10 + size + footer
    }

    /// What follows the tag: `.mp3` when an MPEG audio frame follows (after optional zero
    /// padding) or when the bytes end before anything follows; `nil` when something else does
    /// (ID3 tags also precede AAC and FLAC).
    static func formatAfterTag(_ bytes: [UInt8]) -> MediaFormat? {
        guard var i = end(of: bytes) else { return nil }
        let paddingLimit = i + 65_536
        while i < bytes.count, i < paddingLimit, bytes[i] == 0 { i += 1 }
        if i + 4 > bytes.count { return .mp3 }
        return MPEGAudioFrame.confirmed(bytes, at: i) != nil ? .mp3 : nil
    }
}
