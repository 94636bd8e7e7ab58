import Foundation
import ImageCodecs
import MediaTypes

/// What one streamed decode said besides the pixels: its size, layout, profile and problems.
struct StreamedDecode<Value> {
    /// What the body made of the rows.
    var value: Value
    /// The size of the rows handed out (the decode scale), and their layout.
    var width: Int
    var height: Int
    var layout: PixelBuffer.Layout
    var iccProfile: [UInt8]?
    /// The codec's warnings and damage, read once every row was (so complete).
    var warnings: [String]
    var damage: [String]
    /// How the codec handled the colours (a CMYK conversion), logged as steps.
    var notes: [String] = []

    /// The same decode with `transform` applied to its value.
    func map<T>(_ transform: (Value) throws -> T) rethrows -> StreamedDecode<T> {
        StreamedDecode<T>(
            value: try transform(value), width: width, height: height, layout: layout, iccProfile: iccProfile,
            warnings: warnings, damage: damage, notes: notes)
    }
}

extension ImageProcessor {
    /// The decode options for the smallest codec scale whose output covers `cover` (an upright
    /// size), in stored orientation (a 90° orientation swaps the box).
    ///
    /// `powerOfTwoScales` keeps JPEG to the 1/2, 1/4, 1/8 scales. It is set for CMYK/YCCK, whose
    /// odd-eighth scaled decodes (3/8, 5/8, 7/8) come out visibly soft: the corpus CMYK photo at
    /// 5/8 has a luma SSIM of 0.87 against a full decode, 0.99 at 3/4 (RGB files stay >= 0.99).
    static func decodeOptions(
        stored: Size, covering cover: Size, _ orientation: Orientation, _ limits: ProcessingLimits,
        powerOfTwoScales: Bool = false
    ) -> DecodeOptions {
        var box = orientation.swapsDimensions ? (cover.height, cover.width) : (cover.width, cover.height)
        if powerOfTwoScales {
            // The smallest 1/d that covers the box; asking for exactly its size makes TurboJPEG pick it.
            for d in [8, 4, 2, 1] {
                let w = (stored.width + d - 1) / d, h = (stored.height + d - 1) / d
                if w >= box.0 && h >= box.1 || d == 1 {
                    box = (w, h)
                    break
                }
            }
        }
        return DecodeOptions(minimumSize: box, pixelBudget: limits.policy.pixelBudget, strict: limits.policy.strict)
    }

    /// Opens a row decoder over `input` with `options` and hands it to `body`, which must read
    /// every row (`RowResizer.resize` and `discardRows` do). Nothing is logged here: see `record`.
    ///
    /// With `decodeAhead` (`ProcessingLimits.decodeAhead`) a decode of 8 MP or more runs on a
    /// thread of its own ahead of `body` (`PrefetchingRowSource`); the rows are the same. The
    /// producer is always stopped and joined before the decoder's bytes go out of scope.
    static func stream<Value>(
        _ input: EncodedInput, options: DecodeOptions, decodeAhead: Bool = true,
        _ body: (any ImageRowSource) throws(CodecError) -> Value
    ) throws(ProcessingError) -> StreamedDecode<Value> {
        do {
            return try ImageCodecs.withRows(input.data, format: input.format, options: options) { inner in
                try streamed(inner, decodeAhead: decodeAhead, body)
            }
        } catch {
            throw processingError(error)
        }
    }

    /// `body` over `inner`'s rows, behind a decode-ahead thread when one pays
    /// (`PrefetchingRowSource.pays`), and what the source said once `body` is done; the thread
    /// is stopped and joined before this returns, on every path.
    static func streamed<Value>(
        _ inner: any ImageRowSource, decodeAhead: Bool, _ body: (any ImageRowSource) throws(CodecError) -> Value
    ) throws(CodecError) -> StreamedDecode<Value> {
        var prefetcher: PrefetchingRowSource?
        if decodeAhead && PrefetchingRowSource.pays(width: inner.width, height: inner.height) {
            prefetcher = PrefetchingRowSource(inner)
        }
        defer { prefetcher?.finish() }
        let source: any ImageRowSource = prefetcher ?? inner
        let value = try body(source)
        prefetcher?.finish()
        return StreamedDecode(
            value: value, width: source.width, height: source.height, layout: source.layout,
            iccProfile: source.iccProfile, warnings: source.warnings, damage: source.damage, notes: source.notes)
    }

    /// An error out of a streamed decode as the engine throws it: a codec's as `.codec`.
    static func processingError(_ error: any Error) -> ProcessingError {
        switch error {
        case let error as CodecError: return .codec(error)
        case let error as ProcessingError: return error
        // The codecs' row entry points throw only CodecError, and the bodies only CodecError.
        default: return .codec(.corrupt(codec: "row decoder", message: "\(error)"))
        }
    }

    /// Logs a decode as the engine always has: the scale, then the damage policy (a damaged
    /// image throws `.damaged` unless `limits.policy.acceptDamaged`), then the codec's colour notes (as
    /// steps, once each) and warnings.
    static func record<Value>(
        _ decode: StreamedDecode<Value>, stored: Size, format: MediaFormat, limits: ProcessingLimits,
        _ log: inout ProcessingLog
    ) throws(ProcessingError) {
        let w = decode.width, h = decode.height
        if w == stored.width && h == stored.height {
            log.steps.append("decoded \(format.rawValue) \(w)x\(h)")
        } else {
            let scale = Self.scaleName(stored: stored, decoded: Size(width: w, height: h), format: format)
            log.steps.append("decoded at \(scale): \(stored.width)x\(stored.height) -> \(w)x\(h)")
        }
        if let damage = decode.damage.first {
            guard limits.policy.acceptDamaged else { throw .damaged(format, detail: damage) }
            log.warnings.append("damaged \(format.displayName) used as decoded (damaged images accepted)")
        }
        for note in decode.notes where !log.steps.contains(note) { log.steps.append(note) }
        for warning in decode.warnings { log.warnings.append("\(format.rawValue) decode: \(warning)") }
    }

    /// "1/8" for a JPEG DCT scale, "0.36x" otherwise.
    static func scaleName(stored: Size, decoded: Size, format: MediaFormat) -> String {
        if format == .jpeg {
            for num in 1...8
            where (stored.width * num + 7) / 8 == decoded.width
                && (stored.height * num + 7) / 8 == decoded.height
            {
                var n = num, d = 8
                while n % 2 == 0 && d % 2 == 0 {
                    n /= 2
                    d /= 2
                }
                return "\(n)/\(d)"
            }
        }
        let factor = Double(decoded.width) / Double(stored.width)
        return "\((factor * 100).rounded() / 100)x"
    }

    /// A decode that only proves the data whole: at the smallest scale (a JPEG at 1/8 still
    /// reads every entropy-coded bit, so damage shows exactly as in a full decode), every row
    /// read into one row buffer and dropped. Logged with `record`.
    ///
    /// A baseline YCbCr JPEG is read by its DC coefficients alone when `JPEGDCDecoder` takes it
    /// (`validationByDCReader`; one MCU row of scratch, overwritten): `verify` of 1,700 baseline
    /// 1600 px photos runs 1.32–1.37× as fast (Benchmarks/RESULTS.md). A progressive one is
    /// read by `JPEGProgressiveReader`, which keeps 8 bytes a block instead of libjpeg's 128.
    /// Each takes a file only when libjpeg would decode it with no warning, so the
    /// verdict and the log are the same.
    static func decodeToValidate(
        _ input: EncodedInput, stored: Size, _ orientation: Orientation, _ limits: ProcessingLimits,
        _ log: inout ProcessingLog
    ) throws(ProcessingError) {
        let options = decodeOptions(stored: stored, covering: Size(width: 1, height: 1), orientation, limits)
        if input.format == .jpeg, let decode = validationByDCReader(input, options: options) {
            try record(decode, stored: stored, format: input.format, limits: limits, &log)
            return
        }
        let decode = try stream(input, options: options, decodeAhead: limits.decodeAhead) { source throws(CodecError) in
            try source.discardRows()
        }
        try record(decode, stored: stored, format: input.format, limits: limits, &log)
    }

    /// The validation decode of a JPEG by the DC-only reader (`JPEGCodec.validateByDC`), as
    /// `stream` would have reported libjpeg's 1/8 decode: the same size, no warnings, no damage,
    /// no notes (the reader's own step is left out: the file was validated, not resized from
    /// these planes). Nil when the reader does not take the file, so that libjpeg decodes it and
    /// reports what it finds, as always.
    static func validationByDCReader(_ input: EncodedInput, options: DecodeOptions) -> StreamedDecode<Void>? {
        guard let read = JPEGCodec.validateByDC(input.data, options: options) else { return nil }
        return StreamedDecode(
            value: (), width: read.width, height: read.height, layout: .gray, iccProfile: read.iccProfile,
            warnings: [], damage: [])
    }
}

extension ImageRowSource {
    /// Reads every remaining row into one row buffer and drops it: a validation decode that
    /// never holds the frame.
    func discardRows() throws(CodecError) {
        let stride = width * layout.channels
        guard stride > 0 else { return }
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: stride)
        defer { row.deallocate() }
        while rowsRead < height {
            guard try readRows(into: row, stride: stride, count: 1) == 1 else {
                throw .corrupt(codec: "row decoder", message: "the image ended after \(rowsRead) of its \(height) rows")
            }
        }
    }
}
