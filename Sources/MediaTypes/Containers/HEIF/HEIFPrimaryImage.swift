/// The primary image of a HEIF/HEIC/AVIF file as its boxes and parameter sets describe it,
/// before any pixel is decoded: its displayed size, the items a decode reads, and whether the
/// sizes those items' streams are coded at agree with their headers.
///
///     let image = try HEIFPrimaryImage(bytes)
///     image.displayedSize                                  // after clap and irot: (3024, 4032)
///     try image.checkDecodable(pixelBudget: 50_000_000)    // before libheif decodes
///
/// A HEIF image carries each size twice: `ispe` in the container and the coded size in the
/// stream (the HEVC SPS in `hvcC`, the AV1 sequence header in `av1C` or the item's data); a
/// `grid` or `iovl` item's output size sits in its data besides its `ispe`. A decoder allocates
/// what the stream says, so the stream is what `checkDecodable` measures.
package struct HEIFPrimaryImage {
    package let meta: HEIFMeta

    /// Parses the `meta` box of `bytes`.
    ///
    /// - Throws: `.damaged` when the boxes cannot be walked.
    package init(_ bytes: UnsafeRawBufferPointer) throws(HEIFStructureError) {
        meta = try HEIFMeta(bytes)
    }

    package var primary: Int { meta.primary }

    /// The primary item's `clap`, `irot` and `imir`.
    package var transforms: HEIFTransforms { HEIFTransforms(meta, item: primary) }

    /// The primary item's size before its transforms: its `ispe`, or a `grid`/`iovl` output size.
    package var storedSize: (width: Int, height: Int)? {
        if let ispe = meta.spatialExtent(of: primary), ispe.width > 0, ispe.height > 0 { return ispe }
        return try? derivedOutputSize(of: primary)
    }

    /// The primary image as displayed: `storedSize` cropped by `clap` and turned by `irot`.
    package var displayedSize: (width: Int, height: Int)? {
        storedSize.map { transforms.upright(width: $0.width, height: $0.height) }
    }

    /// Whether the primary image is coded as monochrome (AV1 `mono_chrome`, HEVC 4:0:0) in
    /// limited range, by its `nclx` colour property or, for AV1 with none, by the sequence
    /// header's `color_range`. libheif 1.15 hands such luma to RGB unexpanded (16...235).
    package var isLimitedRangeMonochrome: Bool {
        guard let coded = firstCodedItem(from: primary, depth: 0),
            let type = meta.itemTypes[coded]
        else { return false }
        var header: AV1SequenceHeader?
        switch type {
        case "hvc1":
            guard let hvcC = meta.property("hvcC", of: coded), let format = meta.reader.u8(hvcC.body.lowerBound + 16),
                format & 3 == 0
            else { return false }
        case "av01":
            guard let av1C = meta.property("av1C", of: coded), let flags = meta.reader.u8(av1C.body.lowerBound + 2),
                flags & 0x10 != 0
            else { return false }
            header = try? sequenceHeader(of: coded, av1C: av1C)
        default: return false
        }
        if let full = fullRangeFlag(of: primary) ?? fullRangeFlag(of: coded) { return !full }
        return header.map { !$0.fullRange } ?? false
    }

    /// Refuses, before decoding, a primary image whose decode cannot be trusted or bounded.
    ///
    /// Walks the primary item and every item it is built from (`dimg` sources of `grid`,
    /// `iovl` and `iden`, and `auxl` alpha planes). Each coded item's stream size must match its
    /// `ispe` (HEVC after the conformance window, allowing the one extra column or row libheif
    /// 1.15 writes for odd 4:2:0 sizes; the window may crop less than a 64-sample coding block)
    /// and, with a budget, stay within it; a `grid`'s tiles must cover its output size with less
    /// than one tile to spare.
    ///
    /// - Throws: `.unsupported` for `iden` items, `pred` or `base` references and codecs other
    ///   than HEVC and AV1; `.damaged` for missing or disagreeing sizes; `.overBudget` for a coded
    ///   or output size over `pixelBudget`.
    package func checkDecodable(pixelBudget: Int?) throws(HEIFStructureError) {
        let items = try decodedItems()
        for item in items { try checkSupported(item) }
        for item in items { try checkSize(item, pixelBudget: pixelBudget) }
    }

    /// The primary item, the items it is derived from (recursively) and their alpha planes.
    func decodedItems() throws(HEIFStructureError) -> [Int] {
        var order: [Int] = []
        var seen: Set<Int> = []
        var queue = [primary]
        while let item = queue.first {
            queue.removeFirst()
            guard seen.insert(item).inserted else { continue }
            guard seen.count <= HEIFMeta.limit else {
                throw .damaged("the primary image is built from over 4096 items")
            }
            order.append(item)
            queue += meta.referenced("dimg", from: item)
            queue += meta.references.filter { $0.type == "auxl" && $0.to.contains(item) && isAlpha($0.from) }.map(
                \.from)
        }
        return order
    }

    private static let alphaTypes = ["urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha"]

    /// Whether `item` has an `auxC` naming the alpha auxiliary type.
    func isAlpha(_ item: Int) -> Bool {
        guard let auxC = meta.property("auxC", of: item), auxC.body.count > 4 else { return false }
        let urn = meta.reader.bytes[(auxC.body.lowerBound + 4)..<auxC.body.upperBound].prefix { $0 != 0 }
        return Self.alphaTypes.contains(String(decoding: urn, as: UTF8.self))
    }

    func describe(_ item: Int) -> String {
        let type = meta.itemTypes[item].map { "'\($0)'" } ?? "of no type"
        return item == primary
            ? "the primary image (item \(item), \(type))" : "item \(item) (\(type)) of the primary image"
    }

    private func checkSupported(_ item: Int) throws(HEIFStructureError) {
        if let source = meta.referenced("pred", from: item).first {
            throw .unsupported(
                "\(describe(item)) is predicted from item \(source) (a 'pred' reference), which libheif 1.15 cannot decode; it would come out flat grey"
            )
        }
        if let base = meta.referenced("base", from: item).first {
            let type = meta.itemTypes[base] ?? "?"
            throw .unsupported(
                "\(describe(item)) is a layer over item \(base) ('\(type)', a 'base' reference): layered images are not decoded by libheif 1.15"
            )
        }
        guard let type = meta.itemTypes[item] else {
            throw .damaged("item \(item), which the primary image is built from, has no item information ('infe')")
        }
        switch type {
        case "hvc1", "av01", "grid", "iovl": return
        case "iden":
            throw .unsupported(
                "\(describe(item)) is a derived image of type 'iden' (identity transform), which libheif 1.15 cannot decode"
            )
        case "avc1": throw .unsupported("\(describe(item)) is coded in H.264/AVC, which libheif 1.15 cannot decode")
        case "lhv1": throw .unsupported("\(describe(item)) is coded in layered HEVC, which libheif 1.15 cannot decode")
        default: throw .unsupported("\(describe(item)) has an item type libheif 1.15 cannot decode")
        }
    }

    private func checkSize(_ item: Int, pixelBudget: Int?) throws(HEIFStructureError) {
        let name = describe(item)
        let ispe = meta.spatialExtent(of: item)
        func within(_ w: Int, _ h: Int) throws(HEIFStructureError) {
            guard let budget = pixelBudget else { return }
            let (pixels, overflow) = w.multipliedReportingOverflow(by: h)
            if overflow || pixels > budget { throw .overBudget(what: name, width: w, height: h) }
        }
        switch meta.itemTypes[item] {
        case "hvc1":
            guard let hvcC = meta.property("hvcC", of: item) else {
                throw .damaged("\(name) has no 'hvcC' decoder configuration")
            }
            let sps = try HEVCSequenceParameterSet(hvcC: bytes(hvcC.body))
            guard let ispe else { throw .damaged("\(name) has no 'ispe' size") }
            guard (0...1).contains(sps.width - ispe.width), (0...1).contains(sps.height - ispe.height) else {
                throw .damaged(
                    "\(name) says \(ispe.width)x\(ispe.height) in 'ispe', but its HEVC stream (SPS in 'hvcC') is coded at \(sps.width)x\(sps.height)"
                )
            }
            // The decoder allocates the coded picture; the window crops at most the padding to
            // a whole coding block (64 luma samples at most), so the shown size bounds it.
            guard sps.codedWidth - sps.width < 64, sps.codedHeight - sps.height < 64 else {
                throw .damaged(
                    "\(name)'s HEVC stream is coded at \(sps.codedWidth)x\(sps.codedHeight) and cropped to \(sps.width)x\(sps.height), more than a coding block of padding"
                )
            }
            try within(sps.width, sps.height)
        case "av01":
            guard let av1C = meta.property("av1C", of: item) else {
                throw .damaged("\(name) has no 'av1C' decoder configuration")
            }
            let header = try sequenceHeader(of: item, av1C: av1C)
            guard let ispe else { throw .damaged("\(name) has no 'ispe' size") }
            guard header.maxWidth == ispe.width, header.maxHeight == ispe.height else {
                throw .damaged(
                    "\(name) says \(ispe.width)x\(ispe.height) in 'ispe', but its AV1 sequence header allows frames of \(header.maxWidth)x\(header.maxHeight)"
                )
            }
            try within(header.maxWidth, header.maxHeight)
        case "grid", "iovl":
            let output = try derivedOutputSize(of: item)
            if let ispe, ispe != output {
                throw .damaged(
                    "\(name) says \(ispe.width)x\(ispe.height) in 'ispe', but its data gives an output of \(output.width)x\(output.height)"
                )
            }
            try within(output.width, output.height)
            if meta.itemTypes[item] == "grid" { try checkGridTiles(item, output: output) }
        default: break
        }
    }

    /// A `grid`'s tiles: one per cell, each the same size, covering the output with less than a
    /// tile to spare (ISO/IEC 23008-12 §6.6.2.3).
    private func checkGridTiles(_ item: Int, output: (width: Int, height: Int)) throws(HEIFStructureError) {
        let data = try meta.data(of: item, limit: 4)
        guard data.count >= 4 else { throw .damaged("the data of \(describe(item)) is cut short") }
        let rows = Int(data[2]) + 1, columns = Int(data[3]) + 1
        let tiles = meta.referenced("dimg", from: item)
        guard tiles.count == rows * columns else {
            throw .damaged(
                "\(describe(item)) has \(rows)x\(columns) cells but \(tiles.count) tiles ('dimg' references)")
        }
        guard let size = meta.spatialExtent(of: tiles[0]),
            tiles.allSatisfy({ meta.spatialExtent(of: $0).map { $0 == size } ?? false })
        else { throw .damaged("the tiles of \(describe(item)) are not all the same size") }
        guard size.width * columns >= output.width, size.width * (columns - 1) < output.width,
            size.height * rows >= output.height, size.height * (rows - 1) < output.height
        else {
            throw .damaged(
                "\(describe(item)): \(rows)x\(columns) tiles of \(size.width)x\(size.height) do not fit an output of \(output.width)x\(output.height)"
            )
        }
    }

    /// A `grid` or `iovl` item's output size, from its data.
    func derivedOutputSize(of item: Int) throws(HEIFStructureError) -> (width: Int, height: Int) {
        let data = try meta.data(of: item, limit: 64)
        // grid: version, flags, rows - 1, columns - 1, then the size; iovl: version, flags,
        // four 16-bit fill values, then the size. Flag bit 0: 32-bit sizes.
        let at = meta.itemTypes[item] == "iovl" ? 10 : 4
        guard data.count >= 2 else { throw .damaged("the data of \(describe(item)) is cut short") }
        let wide = data[1] & 1 != 0
        let field = wide ? 4 : 2
        guard data.count >= at + 2 * field else { throw .damaged("the data of \(describe(item)) is cut short") }
        func read(_ p: Int) -> Int { data[p..<(p + field)].reduce(0) { $0 << 8 | Int($1) } }
        let size = (width: read(at), height: read(at + field))
        guard size.width > 0, size.height > 0 else {
            throw .damaged("\(describe(item)) has an output size of \(size.width)x\(size.height)")
        }
        return size
    }

    /// The AV1 sequence header of `item`: from `av1C`'s configOBUs, else from the item's data.
    func sequenceHeader(of item: Int, av1C: HEIFMeta.Box) throws(HEIFStructureError) -> AV1SequenceHeader {
        if av1C.body.count > 4,
            let header = try AV1SequenceHeader(obus: bytes((av1C.body.lowerBound + 4)..<av1C.body.upperBound)[...])
        {
            return header
        }
        if let header = try AV1SequenceHeader(obus: try meta.data(of: item, limit: 4096)[...]) { return header }
        throw .damaged("\(describe(item)) has no AV1 sequence header, in 'av1C' or in its data")
    }

    /// The first HEVC or AV1 item reached from `item` through `dimg` references.
    private func firstCodedItem(from item: Int, depth: Int) -> Int? {
        guard depth < 8, let type = meta.itemTypes[item] else { return nil }
        if type == "hvc1" || type == "av01" { return item }
        return meta.referenced("dimg", from: item).first.flatMap { firstCodedItem(from: $0, depth: depth + 1) }
    }

    /// `full_range_flag` of `item`'s `nclx` colour property; nil when it has none.
    private func fullRangeFlag(of item: Int) -> Bool? {
        for index in meta.associations[item] ?? [] where meta.properties[index].type == "colr" {
            let body = meta.properties[index].body
            guard meta.reader.fourCC(body.lowerBound) == "nclx", let flags = meta.reader.u8(body.lowerBound + 10)
            else { continue }
            return flags & 0x80 != 0
        }
        return nil
    }

    private func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> {
        ArraySlice(meta.reader.bytes[range])
    }
}
