import Foundation
import ImageCodecs
import MediaTypes

/// Encodes the main output under the byte cap: quality search first (`QualitySearch`), then
/// smaller sizes.
///
///     let fitter = ByteCapFitter(upright: size, icc: nil, limits: limits, sourceFormat: .png) { size in
///         try redecode(to: size)
///     }
///     let image = try fitter.fit(mainPixels, format: .jpeg, opaque: true, log: &log)
///
/// Shrinking resamples again from the source (`resample`: a fresh streamed decode, not the
/// previous attempt), so repeated shrinks do not stack blur, and no decoded frame is held
/// meanwhile. The encoders take the current attempt whole: bounded by the output size.
struct ByteCapFitter {
    let upright: Size
    let icc: [UInt8]?
    let limits: ProcessingLimits
    let sourceFormat: MediaFormat
    /// An opaque image that no PNG fits at its size may be written as JPEG instead (the plan
    /// allows `Plan.Deviation.pngOverCapAsJPEG`); else PNG only shrinks.
    var jpegWhenOpaque = true
    /// The upright source resampled to a size, from the source (not from an earlier attempt).
    let resample: (Size) throws(ProcessingError) -> PixelBuffer
    /// Below this long side the fitter gives up with `.cannotFit`.
    static let smallestSide = 16
    /// At most this factor per shrink step.
    static let shrinkStep = 0.8

    /// `pixels` (upright, already at the target size) encoded as `format` within `limits.byteCap`.
    func fit(_ pixels: PixelBuffer, format: MediaFormat, opaque: Bool, log: inout ProcessingLog)
        throws(ProcessingError) -> ProcessedImage
    {
        var current = pixels
        var format = format
        var smallest = Int.max
        while true {
            if format == .png {
                let png = try encodePNG(current, opaque: opaque)
                smallest = min(smallest, png.count)
                if png.count <= limits.byteCap {
                    note(format: .png, log: &log)
                    log.steps.append("encoded png (\(png.count) bytes)")
                    return ProcessedImage(data: png, format: .png, width: current.width, height: current.height)
                }
                if opaque, jpegWhenOpaque {
                    log.steps.append(
                        "png is \(png.count) bytes, over \(limits.byteCap): switching to jpeg (the image is opaque)")
                    format = .jpeg
                    continue
                }
                current = try shrink(current, encodedBytes: png.count, smallest: smallest, log: &log)
                continue
            }
            if let image = try searchJPEG(current, smallest: &smallest, log: &log) { return image }
            current = try shrink(current, encodedBytes: smallest, smallest: smallest, log: &log)
        }
    }

    /// JPEG at `quality`, else the highest quality down to `qualityFloor` that fits; nil when even
    /// the floor is over the cap (`smallest` then holds the floor's size).
    private func searchJPEG(_ pixels: PixelBuffer, smallest: inout Int, log: inout ProcessingLog)
        throws(ProcessingError) -> ProcessedImage?
    {
        let cap = limits.byteCap, top = limits.quality, floor = min(limits.qualityFloor, limits.quality)
        func made(_ data: Data, _ q: Int) -> ProcessedImage {
            ProcessedImage(data: data, format: .jpeg, width: pixels.width, height: pixels.height, quality: q)
        }
        let first = try encodeJPEG(pixels, quality: top)
        smallest = min(smallest, first.count)
        if first.count <= cap {
            note(format: .jpeg, log: &log)
            log.steps.append("encoded jpeg q\(top) (\(first.count) bytes)")
            return made(first, top)
        }
        guard floor < top else { return nil }
        let atFloor = try encodeJPEG(pixels, quality: floor)
        smallest = min(smallest, atFloor.count)
        guard atFloor.count <= cap else {
            log.steps.append(
                "quality search \(top) -> \(floor): still \(atFloor.count) bytes at q\(floor), over \(cap)")
            return nil
        }
        // Invariant: lo fits, hi does not. Each probe is the quality the two bounds predict.
        var search = QualitySearch(lo: floor, loBytes: atFloor.count, hi: top, hiBytes: first.count, cap: cap)
        var best = atFloor, encodes = 2
        while let q = search.next() {
            let data = try encodeJPEG(pixels, quality: q)
            encodes += 1
            if data.count <= cap { best = data }
            search.record(q, bytes: data.count)
        }
        note(format: .jpeg, log: &log)
        log.steps.append(
            "quality search \(top) -> \(search.lo) to fit \(cap) bytes (\(best.count) bytes, \(encodes) encodes)")
        return made(best, search.lo)
    }

    /// The next smaller size: by the square root of the overshoot (bytes roughly follow pixels),
    /// at most `shrinkStep`.
    private func shrink(_ pixels: PixelBuffer, encodedBytes: Int, smallest: Int, log: inout ProcessingLog)
        throws(ProcessingError) -> PixelBuffer
    {
        let ratio = (Double(limits.byteCap) / Double(max(encodedBytes, 1))).squareRoot() * 0.95
        let current = Size(width: pixels.width, height: pixels.height)
        var next = TargetSize.shrunk(current, by: min(Self.shrinkStep, ratio), aspectOf: upright)
        if next == current { next = TargetSize.shrunk(current, by: 0.5, aspectOf: upright) }
        guard max(next.width, next.height) >= Self.smallestSide, next != current else {
            throw .cannotFit(byteCap: limits.byteCap, smallest: smallest)
        }
        log.steps.append("shrunk to \(next.width)x\(next.height) to fit \(limits.byteCap) bytes")
        return try resample(next)
    }

    /// Records a transcode once, when the output format differs from the input's.
    private func note(format: MediaFormat, log: inout ProcessingLog) {
        if format != sourceFormat { log.steps.append("transcoded \(sourceFormat.rawValue) -> \(format.rawValue)") }
    }

    private func encodeJPEG(_ pixels: PixelBuffer, quality: Int) throws(ProcessingError) -> Data {
        do { return try JPEGCodec.encode(pixels, quality: quality, iccProfile: icc) } catch { throw .codec(error) }
    }

    private func encodePNG(_ pixels: PixelBuffer, opaque: Bool) throws(ProcessingError) -> Data {
        let toWrite = opaque ? AlphaChannel.droppingAlpha(pixels) : pixels
        do { return try PNGCodec.encode(toWrite, iccProfile: icc) } catch { throw .codec(error) }
    }
}

/// The highest JPEG quality whose output fits a byte cap, between a quality known to fit
/// (`lo`) and one known not to (`hi`), in few encodes.
///
///     var search = QualitySearch(lo: 60, loBytes: 41_000, hi: 95, hiBytes: 90_000, cap: 70_000)
///     while let q = search.next() { search.record(q, bytes: try encode(q).count) }
///     // search.lo: the answer
///
/// Bytes grow with quality about exponentially, so each probe interpolates log(bytes)
/// linearly between the bounds instead of taking their midpoint. Real curves have steps (the
/// quantisation tables change unevenly, bytes climb steeply near q95), so while the bounds are
/// more than 4 apart a probe is kept inside their middle half, and a probe that kept more than
/// half of the range is followed by a midpoint: every two probes at least halve it, short of
/// bisection's pace by a probe or two at worst. The invariant is bisection's, so where bytes
/// grow with quality the answer is too. Over the real size curves of a photo and a flat
/// synthetic image, 196 caps between their q60 and q95 sizes, about 5.9 encodes per search (the
/// first two included) against bisection's 7.3 (`QualitySearchTests` prints its own figures,
/// with a steep synthetic curve added).
struct QualitySearch {
    /// The highest quality known to fit, and its size.
    private(set) var lo: Int
    private(set) var loBytes: Int
    /// The lowest quality known not to fit, and its size.
    private(set) var hi: Int
    private(set) var hiBytes: Int
    let cap: Int
    /// Set by a probe that kept more than half of the range: the next one is the midpoint.
    private var bisectNext = false

    init(lo: Int, loBytes: Int, hi: Int, hiBytes: Int, cap: Int) {
        (self.lo, self.loBytes, self.hi, self.hiBytes, self.cap) = (lo, loBytes, hi, hiBytes, cap)
    }

    /// The next quality to encode, nil once `lo` and `hi` are neighbours (`lo` is the answer).
    mutating func next() -> Int? {
        let span = hi - lo
        guard span > 1 else { return nil }
        if bisectNext { return lo + span / 2 }
        let a = log(Double(max(loBytes, 1))), b = log(Double(max(hiBytes, 1))), target = log(Double(max(cap, 1)))
        var q = b > a ? lo + Int(((target - a) / (b - a) * Double(span)).rounded(.down)) : lo + span / 2
        if span > 4 { q = min(max(q, lo + span / 4), hi - span / 4) }
        return min(max(q, lo + 1), hi - 1)
    }

    /// The size quality `q` (from `next`) encoded to.
    mutating func record(_ q: Int, bytes: Int) {
        let span = hi - lo
        if bytes <= cap { (lo, loBytes) = (q, bytes) } else { (hi, hiBytes) = (q, bytes) }
        bisectNext = !bisectNext && 2 * (hi - lo) > span
    }
}
