/// The transform properties of a HEIF item: `clap` (clean aperture crop), `irot` (rotation) and
/// `imir` (mirror), which a reader applies in that order (MIAF, ISO/IEC 23000-22 §7.3.6.7).
///
///     let transforms = HEIFTransforms.read(bytes)
///     transforms?.upright(width: 4032, height: 3024)   // (3024, 4032) for irot 90° or 270°
///
/// libheif applies them when it decodes, but libheif 1.15's `heif_image_handle_get_width` is
/// the coded (`ispe`) size, before them; the size after them is worked out here, for the codec's
/// `readInfo` and the sniffer alike.
package struct HEIFTransforms: Equatable, Sendable {
    /// Counter-clockwise quarter turns (`irot`), 0...3.
    package var quarterTurns = 0
    /// Whether an `imir` mirror is associated with the image.
    package var mirrored = false
    /// The clean aperture's size in the coded orientation, when a `clap` crops the image.
    package var clapSize: (width: Int, height: Int)?

    package init(quarterTurns: Int = 0, mirrored: Bool = false, clapSize: (width: Int, height: Int)? = nil) {
        self.quarterTurns = quarterTurns
        self.mirrored = mirrored
        self.clapSize = clapSize
    }

    package static func == (a: HEIFTransforms, b: HEIFTransforms) -> Bool {
        a.quarterTurns == b.quarterTurns && a.mirrored == b.mirrored && a.clapSize?.width == b.clapSize?.width
            && a.clapSize?.height == b.clapSize?.height
    }

    /// The displayed size of a `width × height` (`ispe`) image: cropped by `clap`, then turned.
    package func upright(width: Int, height: Int) -> (width: Int, height: Int) {
        let (w, h) = clapSize ?? (width, height)
        return quarterTurns % 2 == 1 ? (h, w) : (w, h)
    }

    /// The primary item's transforms; nil when the boxes cannot be walked (libheif then decides).
    package static func read(_ bytes: UnsafeRawBufferPointer) -> HEIFTransforms? {
        guard let meta = try? HEIFMeta(bytes) else { return nil }
        return HEIFTransforms(meta, item: meta.primary)
    }

    /// The transforms associated with `item`, in association order.
    package init(_ meta: HEIFMeta, item: Int) {
        for index in meta.associations[item] ?? [] {
            let property = meta.properties[index]
            switch property.type {
            case "irot": quarterTurns = (quarterTurns + (meta.reader.u8(property.body.lowerBound) ?? 0) & 3) % 4
            case "imir": mirrored = true
            case "clap": clapSize = Self.cleanAperture(meta.reader, property.body) ?? clapSize
            default: break
            }
        }
    }

    /// A `clap` body's width and height (two rationals), rounded as libheif does.
    static func cleanAperture(_ reader: ISOBoxReader, _ body: Range<Int>) -> (width: Int, height: Int)? {
        guard let wn = reader.u32(body.lowerBound), let wd = reader.u32(body.lowerBound + 4),
            let hn = reader.u32(body.lowerBound + 8), let hd = reader.u32(body.lowerBound + 12), wd > 0, hd > 0,
            wn > 0, hn > 0
        else { return nil }
        return ((wn + wd / 2) / wd, (hn + hd / 2) / hd)
    }
}
