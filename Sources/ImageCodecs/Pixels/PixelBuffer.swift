/// Decoded pixels: 8 bits per channel, rows top to bottom, each `stride` bytes apart.
///
///     var image = PixelBuffer(width: 2, height: 1, layout: .rgba)
///     image[0, 0, 0] = 255  // red channel of the top-left pixel
///
/// A value type over one contiguous array: copies are cheap until written (copy on write).
/// Unsafe pointer access is `package` so only the codec and engine layers use it.
public struct PixelBuffer: Sendable, Hashable {
    /// The channels of each pixel, one byte each; the raw value is the byte count.
    public enum Layout: Int, Sendable, Hashable {
        /// One channel: luma (grey).
        case gray = 1
        /// Red, green, blue.
        case rgb = 3
        /// Red, green, blue, then straight (not premultiplied) alpha, 255 opaque.
        case rgba = 4
        /// Bytes per pixel.
        public var channels: Int { rawValue }
        /// Whether the layout has an alpha channel (only `.rgba`).
        public var hasAlpha: Bool { self == .rgba }
    }

    /// Width in pixels (columns).
    public let width: Int
    /// Height in pixels (rows).
    public let height: Int
    /// The channels of each pixel.
    public let layout: Layout
    /// Bytes from one row to the next; at least `width * layout.channels`.
    public let stride: Int
    /// `stride * height` bytes.
    public package(set) var bytes: [UInt8]

    /// A zero-filled buffer. Traps on negative sizes (a programmer error: sizes are checked
    /// against the pixel budget before anything is allocated).
    public init(width: Int, height: Int, layout: Layout, stride: Int? = nil) {
        precondition(width >= 0 && height >= 0, "negative image size")
        let rowBytes = width * layout.channels
        let stride = stride ?? rowBytes
        precondition(stride >= rowBytes, "stride shorter than a row")
        self.width = width
        self.height = height
        self.layout = layout
        self.stride = stride
        self.bytes = [UInt8](repeating: 0, count: stride * height)
    }

    /// Wraps existing bytes; `bytes.count` must be at least `stride * height`.
    public init(width: Int, height: Int, layout: Layout, stride: Int? = nil, bytes: [UInt8]) {
        let rowBytes = width * layout.channels
        let stride = stride ?? rowBytes
        precondition(
            width >= 0 && height >= 0 && stride >= rowBytes && bytes.count >= stride * height,
            "pixel bytes do not match the size")
        self.width = width
        self.height = height
        self.layout = layout
        self.stride = stride
        self.bytes = bytes
    }

    /// `width * height`: the number of pixels, not bytes.
    public var pixelCount: Int { width * height }

    /// Channel `c` of the pixel at column `x`, row `y`. Bounds-checked; for tests and slow paths.
    public subscript(x: Int, y: Int, c: Int) -> UInt8 {
        get { bytes[y * stride + x * layout.channels + c] }
        set { bytes[y * stride + x * layout.channels + c] = newValue }
    }

    /// Read access to the raw bytes, for codecs and inner loops.
    package func withUnsafeBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer(body)
    }

    /// Write access to the raw bytes, for codecs and inner loops.
    package mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableBufferPointer<UInt8>) throws -> R) rethrows
        -> R
    {
        try bytes.withUnsafeMutableBufferPointer { buffer in try body(buffer) }
    }
}
