/// ICC profiles in JPEG: APP2 segments that begin `ICC_PROFILE\0`, a 1-based sequence number
/// and the chunk count, split because one segment holds at most 65,533 bytes.
///
///     let withProfile = JPEGICC.embed(profile, in: jpegBytes)
enum JPEGICC {
    static let signature: [UInt8] = Array("ICC_PROFILE".utf8) + [0]
    /// Profile bytes per APP2 segment: 65,535 - 2 (length) - 12 (signature) - 2 (seq, count).
    static let chunkCapacity = 65_519

    struct Failure: Error { let message: String }

    /// Joins chunks by sequence number. Fails when a chunk is missing, duplicated or counts disagree.
    static func assemble(_ chunks: [(sequence: UInt8, count: UInt8, payload: ArraySlice<UInt8>)]) -> Result<
        [UInt8], Failure
    > {
        let count = Int(chunks[0].count)
        guard count > 0, chunks.allSatisfy({ Int($0.count) == count }) else {
            return .failure(Failure(message: "ICC profile chunks disagree on the chunk count; profile ignored"))
        }
        let sorted = chunks.sorted { $0.sequence < $1.sequence }
        guard sorted.count == count, sorted.enumerated().allSatisfy({ Int($0.element.sequence) == $0.offset + 1 })
        else {
            return .failure(Failure(message: "ICC profile has \(chunks.count) of \(count) chunks; profile ignored"))
        }
        return .success(sorted.flatMap { Array($0.payload) })
    }

    /// `jpeg` with `profile` inserted as APP2 segments after SOI and any APP0 (JFIF) segment.
    static func embed(_ profile: [UInt8], in jpeg: [UInt8]) -> [UInt8] {
        guard !profile.isEmpty, jpeg.count >= 2 else { return jpeg }
        var insertAt = 2
        // Keep JFIF first: skip an APP0 right after SOI.
        if jpeg.count >= 6, jpeg[2] == 0xFF, jpeg[3] == 0xE0 {
            let length = Int(jpeg[4]) << 8 | Int(jpeg[5])
            if 4 + length <= jpeg.count { insertAt = 4 + length }
        }
        let chunkCount = (profile.count + chunkCapacity - 1) / chunkCapacity
        guard chunkCount <= 255 else { return jpeg }  // over 16 MB: not representable
        var segments: [UInt8] = []
        segments.reserveCapacity(profile.count + chunkCount * 18)
        for index in 0..<chunkCount {
            let start = index * chunkCapacity
            let chunk = profile[start..<min(profile.count, start + chunkCapacity)]
            let length = 2 + signature.count + 2 + chunk.count
            segments += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)]
            segments += signature
            segments += [UInt8(index + 1), UInt8(chunkCount)]
            segments += chunk
        }
        var out = jpeg
        out.insert(contentsOf: segments, at: insertAt)
        return out
    }
}
