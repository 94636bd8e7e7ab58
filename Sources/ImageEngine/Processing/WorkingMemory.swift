import ImageCodecs
import MediaTypes

extension ImageProcessor {
    /// The most memory `process` may need for one image whose header says `width × height`,
    /// in bytes: what the pipeline reserves from its process-wide memory budget before it
    /// hands the image to the engine.
    ///
    ///     let bytes = ImageProcessor.workingMemory(width: 4000, height: 3000, format: .jpeg, limits: limits)
    ///
    /// (First estimate: the full decoded frame. The streaming engine refines it.)
    public static func workingMemory(width: Int, height: Int, format: MediaFormat, limits: ProcessingLimits) -> Int {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? Int.max / 4 : pixels * 4
    }
}
