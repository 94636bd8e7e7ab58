import Foundation

/// A small MP4 or QuickTime file built box by box: an `ftyp`, a `moov` with one `trak` per track
/// (handler and first sample entry only, the boxes `MovieTracks` reads), and an `mdat` of zeros.
/// Enough for the sniffer and the rules; no player could play it.
///
///     MovieFile.bytes(brand: "qt  ", tracks: [("vide", "apcn"), ("soun", "lpcm")])
public enum MovieFile {
    /// `moovFirst: false` puts the `moov` after the `mdat`, as a camera writes it.
    public static func bytes(
        brand: String, tracks: [(handler: String, code: String)], moovFirst: Bool = true, mdatBytes: Int = 64
    ) -> [UInt8] {
        let ftyp = box("ftyp", Array(brand.utf8) + [0, 0, 2, 0] + Array(brand.utf8) + Array("isom".utf8))
        let traks = tracks.map { track in
            let hdlr = box("hdlr", [0, 0, 0, 0] + [0, 0, 0, 0] + Array(track.handler.utf8) + [UInt8](repeating: 0, count: 13))
            // A sample entry: its size and type, 6 reserved bytes and a data reference index.
            let entry = box(track.code, [0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 16))
            let stsd = box("stsd", [0, 0, 0, 0, 0, 0, 0, 1] + entry)
            let stbl = box("stbl", stsd)
            let minf = box("minf", stbl)
            let mdhd = box("mdhd", [UInt8](repeating: 0, count: 24))
            return box("trak", box("tkhd", [UInt8](repeating: 0, count: 84)) + box("mdia", mdhd + hdlr + minf))
        }
        let moov = box("moov", box("mvhd", [UInt8](repeating: 0, count: 100)) + traks.flatMap { $0 })
        let mdat = box("mdat", [UInt8](repeating: 0, count: mdatBytes))
        return ftyp + (moovFirst ? moov + mdat : mdat + moov)
    }

    /// A box: its 32-bit size, its type, `body`.
    public static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + body.count)
        return withUnsafeBytes(of: size.bigEndian, Array.init) + Array(type.utf8) + body
    }
}
