import MediaTypes
/// Reads `tiff:Orientation` from an XMP packet, for images that carry their orientation in
/// XMP and not in Exif (PNG `iTXt`, WebP `XMP `).
///
///     XMPOrientation.read(Array(#"<rdf:Description tiff:Orientation="6"/>"#.utf8))   // .right
///
/// Both XMP spellings are understood: the attribute (`tiff:Orientation="6"`) and the element
/// (`<tiff:Orientation>6</tiff:Orientation>`, attributes allowed), with white space around the
/// value. A value outside 1...8 is skipped and the next occurrence tried; none found is nil.
/// XMP only ever adds an orientation, so a malformed packet is not an error.
package enum XMPOrientation {
    static let name = Array("tiff:Orientation".utf8)
    /// How far an element's attributes may run before its `>`.
    static let maxAttributes = 512

    package static func read(_ packet: [UInt8]) -> Orientation? {
        var from = 0
        while let start = find(name, in: packet, from: from) {
            from = start + name.count
            let isElement = start > 0 && packet[start - 1] == UInt8(ascii: "<")
            if let orientation = value(in: packet, at: from, isElement: isElement) { return orientation }
        }
        return nil
    }

    /// The orientation right after the name at `index`, in attribute or element form.
    private static func value(in packet: [UInt8], at index: Int, isElement: Bool) -> Orientation? {
        var j = skipSpace(packet, index)
        if isElement {
            // <tiff:Orientation [attributes]>6</tiff:Orientation>; not a self-closing one.
            let limit = min(packet.count, j + maxAttributes)
            guard let close = packet[j..<limit].firstIndex(of: UInt8(ascii: ">")),
                close == j || packet[close - 1] != UInt8(ascii: "/")
            else { return nil }
            j = skipSpace(packet, close + 1)
        } else {
            // tiff:Orientation = "6"
            guard j < packet.count, packet[j] == UInt8(ascii: "=") else { return nil }
            j = skipSpace(packet, j + 1)
            guard j < packet.count, packet[j] == UInt8(ascii: "\"") || packet[j] == UInt8(ascii: "'") else {
                return nil
            }
            j = skipSpace(packet, j + 1)
        }
        guard j < packet.count, (0x31...0x38).contains(packet[j]) else { return nil }
        if j + 1 < packet.count, (0x30...0x39).contains(packet[j + 1]) { return nil }
        return Orientation(rawValue: Int(packet[j] - 0x30))
    }

    private static func skipSpace(_ packet: [UInt8], _ start: Int) -> Int {
        var j = start
        while j < packet.count, [0x20, 0x09, 0x0A, 0x0D].contains(packet[j]) { j += 1 }
        return j
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
