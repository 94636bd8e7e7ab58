/// A size in pixels.
///
///     let thumbnail = Size(width: 256, height: 171)
public struct Size: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Columns, in pixels. Whether a size is stored (as in the file) or upright (after the
    /// Exif orientation) is said where it is used, e.g. `Resizer.resize(_:to:orientation:)`
    /// takes an upright size.
    public var width: Int
    /// Rows, in pixels.
    public var height: Int

    /// A `width` × `height` size in pixels; sizes used for resizing must be positive.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)×\(height)" }
}
