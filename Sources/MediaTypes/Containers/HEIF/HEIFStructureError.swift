/// Why the boxes or parameter sets of a HEIF/HEIC/AVIF file cannot be trusted for decoding.
///
///     do { try HEIFStructure(bytes).checkDecodable(pixelBudget: 50_000_000) }
///     catch .overBudget(let what, let w, let h) { print("\(what) is \(w)x\(h)") }
///
/// Each message says what and where (the box or item), so a caller can pass it on as it is.
package enum HEIFStructureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The boxes or a parameter set are malformed, or two sizes that must agree do not.
    case damaged(String)
    /// Well-formed, but built with a feature this decoder (libheif 1.15) does not have; the
    /// message names the feature.
    case unsupported(String)
    /// A coded or output size over the pixel budget; `what` names the item.
    case overBudget(what: String, width: Int, height: Int)

    package var description: String {
        switch self {
        case .damaged(let message), .unsupported(let message): message
        case .overBudget(let what, let width, let height): "\(what) is coded at \(width)x\(height)"
        }
    }
}
