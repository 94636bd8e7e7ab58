/// Size checks every codec runs on header dimensions before allocating pixels.
enum Limits {
    /// Throws unless `width` x `height` is positive and within `budget` pixels.
    static func check(width: Int, height: Int, budget: Int) throws(CodecError) {
        guard width > 0, height > 0 else { throw .invalidDimensions(width: width, height: height) }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= budget else {
            throw .pixelBudgetExceeded(width: width, height: height, budget: budget)
        }
    }

    /// Throws unless the pixels handed to an encoder have a usable size.
    static func checkEncodable(_ pixels: PixelBuffer, maxSide: Int) throws(CodecError) {
        guard pixels.width > 0, pixels.height > 0, pixels.width <= maxSide, pixels.height <= maxSide else {
            throw .invalidDimensions(width: pixels.width, height: pixels.height)
        }
    }
}
