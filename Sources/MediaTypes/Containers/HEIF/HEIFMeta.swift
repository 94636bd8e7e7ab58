/// The item structure of a HEIF/AVIF file, from its top-level `meta` box: the primary item
/// (`pitm`), each item's type (`iinf`), properties and their associations (`iprp`), references
/// (`iref`) and where each item's data is (`iloc`, `idat`). Nothing is decoded.
///
///     let meta = try HEIFMeta(bytes)
///     meta.itemTypes[meta.primary]          // "hvc1", "av01", "grid", …
///     meta.property("ispe", of: meta.primary)
///
/// Bounded: at most 4096 items, properties, associations and references are read; a file with
/// more is refused as damaged.
package struct HEIFMeta {
    package typealias Box = ISOBoxReader.Box
    package let reader: ISOBoxReader
    /// The primary item's ID (`pitm`).
    package let primary: Int
    /// Item types by ID (`infe` version 2 and 3), e.g. "hvc1", "av01", "grid", "iovl", "iden", "Exif".
    package private(set) var itemTypes: [Int: String] = [:]
    /// The `ipco` properties in order (associations number them from 1).
    package private(set) var properties: [Box] = []
    /// Each item's associated properties, as indices into `properties`, in `ipma` order.
    package private(set) var associations: [Int: [Int]] = [:]
    /// The `iref` references: type ("dimg", "auxl", "thmb", "pred", …), from one item, to items in order.
    package private(set) var references: [(type: String, from: Int, to: [Int])] = []
    /// Each item's data extents (`iloc`), as byte ranges of the file or of `idat`.
    package private(set) var locations: [Int: (inIdat: Bool, extents: [Range<Int>])] = [:]
    /// The body of `idat`, when there is one.
    package private(set) var idat: Range<Int>?

    static let limit = 4096

    /// Parses the top-level `meta` box of `bytes`.
    ///
    /// - Throws: `.damaged` naming the box that is missing, cut short or inconsistent.
    package init(_ bytes: UnsafeRawBufferPointer) throws(HEIFStructureError) {
        reader = ISOBoxReader(bytes)
        let meta = try Self.topLevelMeta(reader)
        // `meta` is a full box: its children start after its version and flags.
        guard meta.body.count >= 4 else { throw .damaged("the 'meta' box is cut short") }
        let children = try reader.boxes(in: (meta.body.lowerBound + 4)..<meta.body.upperBound, parent: "meta")
        func child(_ type: String) -> Box? { children.first { $0.type == type } }
        guard let pitm = child("pitm") else { throw .damaged("the 'meta' box has no primary item ('pitm')") }
        guard let pitmVersion = reader.u8(pitm.body.lowerBound),
            let primary = reader.uint(pitm.body.lowerBound + 4, size: pitmVersion == 0 ? 2 : 4)
        else { throw .damaged("the 'pitm' box is cut short") }
        self.primary = primary
        idat = child("idat")?.body
        if let iinf = child("iinf") { try readItemInfo(iinf) }
        guard itemTypes[primary] != nil else {
            throw .damaged("the primary item \(primary) has no item information ('infe')")
        }
        if let iprp = child("iprp") { try readProperties(iprp) }
        if let iref = child("iref") { try readReferences(iref) }
        if let iloc = child("iloc") { try readLocations(iloc) }
    }

    /// The property of `type` associated with `item` (the first one, in association order).
    package func property(_ type: String, of item: Int) -> Box? {
        associations[item]?.lazy.map { properties[$0] }.first { $0.type == type }
    }

    /// The items `item` refers to with references of `type`, in order.
    package func referenced(_ type: String, from item: Int) -> [Int] {
        references.filter { $0.type == type && $0.from == item }.flatMap(\.to)
    }

    /// The width and height in `item`'s `ispe` property; nil when it has none.
    package func spatialExtent(of item: Int) -> (width: Int, height: Int)? {
        guard let ispe = property("ispe", of: item), let w = reader.u32(ispe.body.lowerBound + 4),
            let h = reader.u32(ispe.body.lowerBound + 8)
        else { return nil }
        return (w, h)
    }

    /// Up to `limit` bytes of `item`'s data, its extents joined in order.
    ///
    /// - Throws: `.damaged` when the item has no location or an extent lies outside the file.
    package func data(of item: Int, limit: Int) throws(HEIFStructureError) -> [UInt8] {
        guard let location = locations[item] else { throw .damaged("item \(item) has no location in 'iloc'") }
        let base = location.inIdat ? (idat?.lowerBound ?? -1) : 0
        let end = location.inIdat ? (idat?.upperBound ?? -1) : reader.bytes.count
        var out: [UInt8] = []
        for extent in location.extents where out.count < limit {
            let start = base + extent.lowerBound
            let stop = extent.isEmpty ? end : base + extent.upperBound
            guard base >= 0, start >= base, start <= stop, stop <= end else {
                throw .damaged(
                    "item \(item)'s data (iloc extent at \(extent.lowerBound), \(extent.count) bytes) lies outside the file"
                )
            }
            out += reader.bytes[start..<min(stop, start + limit - out.count)]
        }
        return out
    }

    /// The top-level `meta` box. Walking stops at it, so a cut-short `mdat` after it is
    /// libheif's concern, not the structure's.
    static func topLevelMeta(_ reader: ISOBoxReader) throws(HEIFStructureError) -> Box {
        var i = 0
        for _ in 0..<ISOBoxReader.maximumBoxes {
            guard let size = reader.u32(i), let type = reader.fourCC(i + 4) else { break }
            var header = 8
            var length = size
            if size == 1 {
                guard let large = reader.uint(i + 8, size: 8) else { break }
                (length, header) = (large, 16)
            } else if size == 0 {
                length = reader.bytes.count - i
            }
            guard length >= header, length <= reader.bytes.count - i else {
                if type == "meta" { throw .damaged("the 'meta' box claims \(length) bytes, past the end of the file") }
                break
            }
            if type == "meta" { return Box(type: type, body: (i + header)..<(i + length)) }
            i += length
        }
        throw .damaged("the file has no top-level 'meta' box")
    }

    private mutating func readItemInfo(_ iinf: Box) throws(HEIFStructureError) {
        guard let version = reader.u8(iinf.body.lowerBound) else { throw .damaged("the 'iinf' box is cut short") }
        let first = iinf.body.lowerBound + 4 + (version == 0 ? 2 : 4)
        guard first <= iinf.body.upperBound else { throw .damaged("the 'iinf' box is cut short") }
        for infe in try reader.boxes(in: first..<iinf.body.upperBound, parent: "iinf") where infe.type == "infe" {
            let at = infe.body.lowerBound
            // Versions 0 and 1 (no item type) describe no image item.
            guard let v = reader.u8(at), v >= 2 else { continue }
            let idSize = v == 2 ? 2 : 4
            guard let id = reader.uint(at + 4, size: idSize), let type = reader.fourCC(at + 4 + idSize + 2),
                at + 4 + idSize + 6 <= infe.body.upperBound
            else { throw .damaged("an 'infe' box is cut short") }
            guard itemTypes.count < Self.limit else { throw .damaged("the 'iinf' box lists more than 4096 items") }
            itemTypes[id] = type
        }
    }

    private mutating func readProperties(_ iprp: Box) throws(HEIFStructureError) {
        let children = try reader.boxes(in: iprp.body, parent: "iprp")
        guard let ipco = children.first(where: { $0.type == "ipco" }) else { return }
        properties = try reader.boxes(in: ipco.body, parent: "ipco")
        for ipma in children where ipma.type == "ipma" {
            let at = ipma.body.lowerBound
            guard let version = reader.u8(at), let flags = reader.u8(at + 3), let entries = reader.u32(at + 4) else {
                throw .damaged("the 'ipma' box is cut short")
            }
            guard entries <= Self.limit else { throw .damaged("the 'ipma' box lists \(entries) items, over 4096") }
            let wide = flags & 1 != 0
            var p = at + 8
            for _ in 0..<entries {
                guard let item = reader.uint(p, size: version < 1 ? 2 : 4),
                    let count = reader.u8(p + (version < 1 ? 2 : 4))
                else { throw .damaged("the 'ipma' box is cut short") }
                p += (version < 1 ? 2 : 4) + 1
                var indices = associations[item] ?? []
                for _ in 0..<count {
                    guard let value = wide ? reader.u16(p) : reader.u8(p), p + (wide ? 2 : 1) <= ipma.body.upperBound
                    else { throw .damaged("the 'ipma' box is cut short") }
                    p += wide ? 2 : 1
                    let index = value & (wide ? 0x7FFF : 0x7F)
                    guard index <= properties.count else {
                        throw .damaged(
                            "'ipma' associates item \(item) with property \(index); 'ipco' has \(properties.count)")
                    }
                    if index >= 1 { indices.append(index - 1) }
                }
                guard p <= ipma.body.upperBound else { throw .damaged("the 'ipma' box is cut short") }
                associations[item] = indices
            }
        }
    }

    private mutating func readReferences(_ iref: Box) throws(HEIFStructureError) {
        guard let version = reader.u8(iref.body.lowerBound), iref.body.count >= 4 else {
            throw .damaged("the 'iref' box is cut short")
        }
        let idSize = version == 0 ? 2 : 4
        var total = 0
        for box in try reader.boxes(in: (iref.body.lowerBound + 4)..<iref.body.upperBound, parent: "iref") {
            guard let from = reader.uint(box.body.lowerBound, size: idSize),
                let count = reader.u16(box.body.lowerBound + idSize),
                box.body.lowerBound + idSize + 2 + count * idSize <= box.body.upperBound
            else { throw .damaged("an '\(box.type)' reference in 'iref' is cut short") }
            total += count
            guard total <= Self.limit else { throw .damaged("the 'iref' box holds more than 4096 references") }
            var to: [Int] = []
            for k in 0..<count {
                to.append(reader.uint(box.body.lowerBound + idSize + 2 + k * idSize, size: idSize) ?? 0)
            }
            references.append((box.type, from, to))
        }
    }

    private mutating func readLocations(_ iloc: Box) throws(HEIFStructureError) {
        let at = iloc.body.lowerBound
        guard let version = reader.u8(at), let sizes = reader.u16(at + 4) else {
            throw .damaged("the 'iloc' box is cut short")
        }
        let offsetSize = sizes >> 12, lengthSize = (sizes >> 8) & 15, baseSize = (sizes >> 4) & 15
        let indexSize = version >= 1 ? sizes & 15 : 0
        guard [0, 4, 8].contains(offsetSize), [0, 4, 8].contains(lengthSize), [0, 4, 8].contains(baseSize),
            [0, 4, 8].contains(indexSize)
        else {
            throw .damaged(
                "the 'iloc' box has field sizes \(offsetSize)/\(lengthSize)/\(baseSize)/\(indexSize) bytes, not 0, 4 or 8"
            )
        }
        let idSize = version < 2 ? 2 : 4
        guard let count = reader.uint(at + 6, size: idSize) else { throw .damaged("the 'iloc' box is cut short") }
        guard count <= Self.limit else { throw .damaged("the 'iloc' box lists \(count) items, over 4096") }
        var p = at + 6 + idSize
        for _ in 0..<count {
            guard let id = reader.uint(p, size: idSize) else { throw .damaged("the 'iloc' box is cut short") }
            p += idSize
            var method = 0
            if version >= 1 {
                guard let m = reader.u16(p) else { throw .damaged("the 'iloc' box is cut short") }
                method = m & 15
                p += 2
            }
            guard reader.u16(p) != nil, let base = reader.uint(p + 2, size: baseSize),
                let extentCount = reader.u16(p + 2 + baseSize)
            else { throw .damaged("the 'iloc' box is cut short") }
            p += 2 + baseSize + 2
            var extents: [Range<Int>] = []
            for _ in 0..<extentCount {
                p += indexSize
                guard let offset = reader.uint(p, size: offsetSize),
                    let length = reader.uint(p + offsetSize, size: lengthSize),
                    p + offsetSize + lengthSize <= iloc.body.upperBound
                else { throw .damaged("the 'iloc' entry of item \(id) is cut short") }
                p += offsetSize + lengthSize
                let start = base + offset
                let (end, overflow) = start.addingReportingOverflow(length)
                guard !overflow else { throw .damaged("the 'iloc' entry of item \(id) overflows") }
                extents.append(start..<end)
            }
            // Construction method 2 (data in another item) is not used by image items here.
            if method <= 1 { locations[id] = (method == 1, extents) }
        }
    }
}
