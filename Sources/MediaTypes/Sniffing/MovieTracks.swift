/// The codec of each track of an MP4 or QuickTime movie, read from its `moov` box: for every
/// `trak`, the handler (`vide`, `soun`) and the four-character code of its first sample entry
/// (`stsd`). Nothing is decoded.
///
///     MovieTracks.read(bytes)   // [MovieTrack(kind: .video, code: "vp09"), MovieTrack(kind: .audio, code: "Opus")]
///
/// The `moov` box is found by walking the top-level boxes (32- and 64-bit sizes) within the bytes
/// given. A movie written for streaming has it before `mdat`; one that has it at the end, past
/// the bytes given, yields no tracks, and so no verdict on its codecs.
public enum MovieTracks {
    /// At most this many tracks are read.
    static let maxTracks = 64

    /// The tracks found, in file order; empty when there is no complete `moov` in `bytes`.
    public static func read(_ bytes: [UInt8]) -> [MovieTrack] {
        guard let moov = child("moov", in: bytes, from: 0, to: bytes.count) else { return [] }
        var tracks: [MovieTrack] = []
        for trak in children("trak", in: bytes, of: moov).prefix(maxTracks) {
            guard let mdia = child("mdia", in: bytes, of: trak) else { continue }
            let handler = child("hdlr", in: bytes, of: mdia).flatMap { hdlr in
                // version and flags (4), pre_defined (4), then handler_type.
                fourCC(bytes, at: hdlr.lowerBound + 8, within: hdlr)
            }
            guard let minf = child("minf", in: bytes, of: mdia), let stbl = child("stbl", in: bytes, of: minf),
                let stsd = child("stsd", in: bytes, of: stbl)
            else { continue }
            // version and flags (4), entry_count (4), then the first entry's size (4) and type.
            guard let code = fourCC(bytes, at: stsd.lowerBound + 12, within: stsd) else { continue }
            tracks.append(MovieTrack(kind: MovieTrack.Kind(handler: handler), code: code))
        }
        return tracks
    }

    /// The payload (after the header) of the first box of `type` among the boxes laid end to end
    /// from `start` to `end`.
    static func child(_ type: String, in bytes: [UInt8], from start: Int, to end: Int) -> Range<Int>? {
        var found: Range<Int>?
        walk(bytes, from: start, to: end) { boxType, payload in
            guard boxType == type else { return true }
            found = payload
            return false
        }
        return found
    }

    static func child(_ type: String, in bytes: [UInt8], of parent: Range<Int>) -> Range<Int>? {
        child(type, in: bytes, from: parent.lowerBound, to: parent.upperBound)
    }

    static func children(_ type: String, in bytes: [UInt8], of parent: Range<Int>) -> [Range<Int>] {
        var found: [Range<Int>] = []
        walk(bytes, from: parent.lowerBound, to: parent.upperBound) { boxType, payload in
            if boxType == type { found.append(payload) }
            return found.count < maxTracks
        }
        return found
    }

    /// Calls `visit` with each box's type and payload range until it returns false, the boxes
    /// end, or one claims more bytes than there are (a cut-off file: the walk stops there).
    private static func walk(
        _ bytes: [UInt8], from start: Int, to end: Int, visit: (String, Range<Int>) -> Bool
    ) {
        var offset = start
        while offset + 8 <= end {
            let size32 = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
            guard let type = fourCC(bytes, at: offset + 4, within: offset..<end) else { return }
            var header = 8
            var size = size32
            if size32 == 1 {
                guard offset + 16 <= end else { return }
                var size64: UInt64 = 0
                for byte in bytes[(offset + 8)..<(offset + 16)] { size64 = size64 << 8 | UInt64(byte) }
                guard size64 <= UInt64(end - offset) else { return }
                size = Int(size64)
                header = 16
            } else if size32 == 0 {
                size = end - offset  // to the end of the enclosing box
            }
            guard size >= header, offset + size <= end else { return }
            guard visit(type, (offset + header)..<(offset + size)) else { return }
            offset += size
        }
    }

    private static func fourCC(_ bytes: [UInt8], at offset: Int, within range: Range<Int>) -> String? {
        guard offset >= range.lowerBound, offset + 4 <= range.upperBound else { return nil }
        let code = bytes[offset..<offset + 4]
        guard code.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        return String(decoding: code, as: UTF8.self)
    }
}

/// One track of a movie: what it carries and its codec's four-character code.
public struct MovieTrack: Sendable, Hashable {
    /// What a track carries, from its handler.
    public enum Kind: String, Sendable, Hashable {
        /// `vide`.
        case video
        /// `soun`.
        case audio
        /// Anything else: text, timecode, metadata, hints.
        case other

        init(handler: String?) {
            switch handler {
            case "vide": self = .video
            case "soun": self = .audio
            default: self = .other
            }
        }
    }

    /// Video, audio or other.
    public var kind: Kind
    /// The sample entry's code: `avc1`, `hvc1`, `vp09`, `av01`, `apcn`, `mp4a`, `Opus`...
    public var code: String

    /// "H.264 video, AAC audio": each video and audio track's codec and kind, for messages.
    public static func describe(_ tracks: [MovieTrack]) -> String {
        let named = tracks.filter { $0.kind != .other }.map { "\($0.codecName) \($0.kind.rawValue)" }
        return named.isEmpty ? "no audio or video track" : named.joined(separator: ", ")
    }

    /// A track of `kind` whose codec is `code`.
    public init(kind: Kind, code: String) {
        self.kind = kind
        self.code = code
    }

    /// The codec's common name: "H.264", "VP9", "ProRes 422", "AAC"; the code itself when not known.
    public var codecName: String { Self.names[code] ?? code.trimmingSpaces }

    /// True when iOS plays the codec in a notification's movie or sound: H.264, HEVC (and Dolby
    /// Vision over it), MPEG-4 Part 2 and Motion JPEG video; AAC, ALAC, MP3, AC-3, E-AC-3, FLAC
    /// and PCM audio. False for VP8, VP9 and AV1 (only the newest devices decode AV1, in hardware),
    /// ProRes on most devices, and for codes not known here. Tracks other than video and audio
    /// are not judged (true).
    public var playsOnIOS: Bool {
        kind == .other || Self.playable.contains(code)
    }

    /// The codecs that keep playing when moved from QuickTime into an MP4 file as they are.
    public var fitsInMP4: Bool { kind == .other || Self.mp4Compatible.contains(code) }

    static let playable: Set<String> = [
        "avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "mp4v", "jpeg", "mjpa", "mjpb",
        "mp4a", "alac", ".mp3", "ac-3", "ec-3", "fLaC", "lpcm", "sowt", "twos", "in24", "in32", "fl32", "ulaw", "alaw",
    ]

    static let mp4Compatible: Set<String> = [
        "avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "mp4v", "mp4a", "alac", ".mp3", "ac-3", "ec-3", "fLaC",
    ]

    static let names: [String: String] = [
        "avc1": "H.264", "avc3": "H.264", "hvc1": "HEVC", "hev1": "HEVC", "dvh1": "Dolby Vision", "dvhe": "Dolby Vision",
        "mp4v": "MPEG-4 Part 2", "jpeg": "Motion JPEG", "mjpa": "Motion JPEG", "mjpb": "Motion JPEG",
        "vp08": "VP8", "vp09": "VP9", "av01": "AV1",
        "apch": "ProRes 422 HQ", "apcn": "ProRes 422", "apcs": "ProRes 422 LT", "apco": "ProRes 422 Proxy",
        "ap4h": "ProRes 4444", "ap4x": "ProRes 4444 XQ",
        "mp4a": "AAC", "alac": "ALAC", ".mp3": "MP3", "ac-3": "AC-3", "ec-3": "E-AC-3", "fLaC": "FLAC", "Opus": "Opus",
        "lpcm": "PCM", "sowt": "PCM", "twos": "PCM", "in24": "PCM", "in32": "PCM", "fl32": "PCM",
        "ulaw": "mu-law", "alaw": "A-law",
    ]
}
