/// A size in pixels.
///
///     let thumbnail = Size(width: 256, height: 171)
public struct Size: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)×\(height)" }
}
