/// Reads `tiff:Orientation` from an XMP packet, for images that carry their orientation in
/// XMP and not in Exif (PNG `iTXt`, WebP `XMP `).
///
///     XMPOrientation.read(Array(#"<rdf:Description tiff:Orientation="6"/>"#.utf8))   // .right
///
/// Both XMP spellings are understood: the attribute (`tiff:Orientation="6"`) and the element
/// (`<tiff:Orientation>6</tiff:Orientation>`). Anything else, or a value outside 1...8, is nil:
/// XMP only ever adds an orientation, so a malformed packet is not an error.
public enum XMPOrientation {
    static let name = Array("tiff:Orientation".utf8)

    public static func read(_ packet: [UInt8]) -> Orientation? {
        var i = 0
        while let start = find(name, in: packet, from: i) {
            var j = start + name.count
            // Attribute: optional spaces, '=', optional spaces, a quote. Element: '>'.
            while j < packet.count, packet[j] == 0x20 { j += 1 }
            if j < packet.count, packet[j] == UInt8(ascii: "=") {
                j += 1
                while j < packet.count, packet[j] == 0x20 { j += 1 }
                guard j < packet.count, packet[j] == UInt8(ascii: "\"") || packet[j] == UInt8(ascii: "'") else {
                    return nil
                }
                j += 1
            } else if j < packet.count, packet[j] == UInt8(ascii: ">") {
                j += 1
                while j < packet.count, packet[j] == 0x20 || packet[j] == 0x0A || packet[j] == 0x0D || packet[j] == 0x09
                {
                    j += 1
                }
            } else {
                i = start + name.count
                continue
            }
            guard j < packet.count, (0x31...0x38).contains(packet[j]) else { return nil }
            let next = j + 1 < packet.count ? packet[j + 1] : 0
            guard !(0x30...0x39).contains(next) else { return nil }
            return Orientation(rawValue: Int(packet[j] - 0x30))
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard needle.count <= haystack.count, start <= haystack.count - needle.count else { return nil }
        var i = start
        while i <= haystack.count - needle.count {
            if haystack[i] == needle[0], haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
