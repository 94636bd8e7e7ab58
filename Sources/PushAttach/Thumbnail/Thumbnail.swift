import Foundation
import ImageEngine

/// A small image made from image bytes, for a preview: decoded straight at the smallest codec
/// scale that covers it (a JPEG's DCT scaling: 1/2, 1/4, 1/8), never at full size first.
///
///     let photo = try Data(contentsOf: URL(fileURLWithPath: "photo.jpg"))
///     let thumbnail = try await Thumbnail.jpeg(from: photo, maxSide: 256)
///     thumbnail.size     // 256×171
///     thumbnail.format   // .jpeg
public struct Thumbnail: Sendable, Hashable {
    /// The encoded thumbnail.
    public var data: Data
    /// Its pixel size, upright: the long side is at most the `maxSide` asked for.
    public var size: PixelSize
    /// `.jpeg`; `.png` when the image has real transparency (JPEG has none), or when the input
    /// already fits in `maxSide` and is passed through as it is (then also `.jpeg` for a JPEG).
    public var format: MediaFormat
    /// What was done, one step each ("decoded at 1/8: …", "resized …", "encoded jpeg q80").
    public var steps: [String]
    /// What the decoder recovered from, and other things worth a look.
    public var warnings: [String]

    /// A thumbnail of JPEG, PNG or WebP `data` whose long side fits in `maxSide`.
    ///
    ///     let thumbnail = try await Thumbnail.jpeg(from: photo, maxSide: 256, quality: 70)
    ///     try thumbnail.data.write(to: URL(fileURLWithPath: "thumb.jpg"))
    ///
    /// Orientation (Exif) is applied. A progressive JPEG decoded at 1/8 is read only up to the
    /// scans that image needs (its DC scans): damage in its later scans goes unseen, which a
    /// preview can afford (`ProcessingLimits.validateAllScans` is false here). An image that
    /// already fits and iOS accepts as it is comes back unchanged. The work runs on threads of
    /// its own, off Swift's cooperative pool.
    ///
    /// - Parameters:
    ///   - maxSide: the side of the square box the thumbnail fits in (at least 1).
    ///   - quality: JPEG quality, 1...100.
    /// - Throws: `AttachmentError` of kind `.invalidArgument` for a side or quality out of
    ///   range, `.rejected` for bytes that are not a decodable image (or a pixel bomb),
    ///   `.processingFailed` when the engine fails, `.cancelled` when the task was cancelled.
    /// - Complexity: one decode at reduced scale, one resize, one encode.
    public static func jpeg(from data: Data, maxSide: Int, quality: Int = 80) async throws(AttachmentError)
        -> Thumbnail
    {
        guard maxSide >= 1 else {
            throw AttachmentError(kind: .invalidArgument, reason: "maxSide is \(maxSide); it must be at least 1")
        }
        guard (1...100).contains(quality) else {
            throw AttachmentError(kind: .invalidArgument, reason: "quality is \(quality); it must be within 1...100")
        }
        if Task.isCancelled { throw .cancelled(nil) }
        let sniffed: SniffedType
        do { sniffed = try Sniffer.sniff(data) } catch {
            throw AttachmentError(kind: .rejected, errorCode: .unrecognizedType, reason: "not an image: \(error)")
        }
        var limits = ProcessingLimits()
        limits.maxLongSide = maxSide
        limits.quality = quality
        limits.qualityFloor = min(limits.qualityFloor, quality)
        limits.validateAllScans = false
        let chosen = limits
        let result: Result<ProcessingResult, ProcessingError> = await Offload.images.run { processor in
            Result { () throws(ProcessingError) in try processor.process(data, sniffed: sniffed, limits: chosen) }
        }
        switch result {
        case .success(let processed):
            let output = processed.output
            return Thumbnail(
                data: output.data, size: PixelSize(width: output.width, height: output.height), format: output.format,
                steps: processed.steps, warnings: processed.warnings)
        case .failure(let error):
            let kind: AttachmentError.Kind =
                switch error {
                case .notDecodable, .codec, .exif, .damaged: .rejected
                default: .processingFailed
                }
            throw AttachmentError(kind: kind, reason: error.description, underlying: .processing(error))
        }
    }
}
