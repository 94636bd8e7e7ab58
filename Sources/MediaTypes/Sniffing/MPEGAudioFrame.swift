/// An MPEG-1/2/2.5 audio frame header (the 4 bytes starting with an 11-bit sync), enough to know
/// the frame's length so a second frame can be checked.
///
///     MPEGAudioFrame(bytes, at: 0)?.length  // 209
struct MPEGAudioFrame: Sendable, Hashable {
    enum Version: Sendable, Hashable { case v1, v2, v25 }
    let version: Version
    /// 1, 2 or 3.
    let layer: Int
    let bitrate: Int
    let sampleRate: Int
    let length: Int

    private static let bitratesV1: [[Int]] = [
        [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],  // layer I
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],  // layer II
        [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],  // layer III
    ]
    private static let bitratesV2: [[Int]] = [
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],  // layer I
        [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],  // layers II and III
    ]

    /// `nil` unless the 4 bytes at `offset` are a valid header (no free-format bitrate).
    init?(_ bytes: [UInt8], at offset: Int) {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        let b1 = bytes[offset + 1], b2 = bytes[offset + 2], b3 = bytes[offset + 3]
        guard bytes[offset] == 0xFF, b1 & 0xE0 == 0xE0 else { return nil }
        let version: Version
        switch (b1 >> 3) & 0x3 {
        case 0: version = .v25
        case 2: version = .v2
        case 3: version = .v1
        default: return nil
        }
        let layerBits = Int((b1 >> 1) & 0x3)
        guard layerBits != 0 else { return nil }
        let layer = 4 - layerBits
        let bitrateIndex = Int(b2 >> 4)
        let rateIndex = Int((b2 >> 2) & 0x3)
        guard bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3, b3 & 0x3 != 2 else { return nil }
        let kbps =
            version == .v1
            ? Self.bitratesV1[layer - 1][bitrateIndex] : Self.bitratesV2[layer == 1 ? 0 : 1][bitrateIndex]
        let baseRates = [44100, 48000, 32000]
        let sampleRate = baseRates[rateIndex] / (version == .v1 ? 1 : version == .v2 ? 2 : 4)
        let padding = Int((b2 >> 1) & 0x1)
        let bitrate = kbps * 1000
        let length: Int
        switch layer {
        case 1: length = (12 * bitrate / sampleRate + padding) * 4
        case 3 where version != .v1: length = 72 * bitrate / sampleRate + padding
        default: length = 144 * bitrate / sampleRate + padding
        }
        guard length >= 4 else { return nil }
        self.version = version
        self.layer = layer
        self.bitrate = bitrate
        self.sampleRate = sampleRate
        self.length = length
    }

    /// A frame at `offset` that is either followed by a matching frame or runs to the end of the
    /// bytes (a one-frame file, or a prefix too short to hold the second header).
    static func confirmed(_ bytes: [UInt8], at offset: Int) -> MPEGAudioFrame? {
        guard let first = MPEGAudioFrame(bytes, at: offset) else { return nil }
        let next = offset + first.length
        if next + 4 > bytes.count { return first }
        guard let second = MPEGAudioFrame(bytes, at: next), second.version == first.version,
            second.layer == first.layer, second.sampleRate == first.sampleRate
        else { return nil }
        return first
    }
}
