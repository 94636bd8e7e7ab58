import ImageCodecs

extension RowResizer {
    /// Rows shrink (or only the vertical axis changes): a ring of `wy.taps` plane rows; each
    /// output row is the vertical pass over its taps, then (with `wx`) the horizontal pass of
    /// that one 16-bit row through `map`.
    func verticalFirst(
        _ feed: inout RowFeed, _ wy: ResampleWeights, then wx: ResampleWeights?,
        into dst: UnsafeMutablePointer<UInt8>, _ map: PixelMapping
    ) throws(CodecError) {
        let channels = feed.channels, width = feed.planeWidth, samples = width * channels, taps = wy.taps
        let ring = ring8.pointer(count: taps * samples)
        let acc = accumulator.pointer(count: samples)
        let tmp = wx == nil ? nil : row16.pointer(count: samples)
        let floats = wx.map { floatRow.pointer(count: ResamplePasses.rowFloats($0, channels: channels)) }
        for j in 0..<wy.destination {
            let first = wy.starts[j]
            while feed.produced < first + taps { try feed.next(into: ring + (feed.produced % taps) * samples) }
            withRing(UnsafePointer(ring), first: first, taps: taps, rowLength: samples) { rows in
                wy.unitWeights.withUnsafeBufferPointer { w in
                    let wj = w.baseAddress! + j * taps
                    if let wx, let tmp, let floats {
                        ResamplePasses.verticalRow(
                            rows, weights: wj, taps: taps, width: width, channels: channels, accumulator: acc,
                            into: tmp, columnStep: channels)
                        ResamplePasses.horizontal(
                            UnsafePointer(tmp), stride: samples, rows: 1, weights: wx, channels: channels,
                            floats: floats, into: dst, map.row(j))
                    } else {
                        ResamplePasses.verticalRow(
                            rows, weights: wj, taps: taps, width: width, channels: channels, accumulator: acc,
                            into: dst + (map.origin + j * map.rowStep), columnStep: map.columnStep)
                    }
                }
            }
        }
    }

    /// Rows grow: each plane row is resampled horizontally into a ring of `wy.taps` 16-bit
    /// rows; each output row is the vertical pass over its taps, through `map`.
    func horizontalFirst(
        _ feed: inout RowFeed, _ wx: ResampleWeights, then wy: ResampleWeights,
        into dst: UnsafeMutablePointer<UInt8>, _ map: PixelMapping
    ) throws(CodecError) {
        let channels = feed.channels, taps = wy.taps
        let samples = wx.destination * channels
        let ring = ring16.pointer(count: taps * samples)
        let row = planeRow.pointer(count: feed.planeWidth * channels)
        let acc = accumulator.pointer(count: samples)
        let floats = floatRow.pointer(count: ResamplePasses.rowFloats(wx, channels: channels))
        let packed = PixelMapping(channels: channels, stride: samples)
        for j in 0..<wy.destination {
            let first = wy.starts[j]
            while feed.produced < first + taps {
                let slot = ring + (feed.produced % taps) * samples
                try feed.next(into: row)
                ResamplePasses.horizontal(
                    UnsafePointer(row), stride: feed.planeWidth * channels, rows: 1, weights: wx, channels: channels,
                    floats: floats, into: slot, packed)
            }
            withRing(UnsafePointer(ring), first: first, taps: taps, rowLength: samples) { rows in
                wy.unitWeights.withUnsafeBufferPointer { w in
                    ResamplePasses.verticalRow(
                        rows, weights: w.baseAddress! + j * taps, taps: taps, width: wx.destination,
                        channels: channels, accumulator: acc, into: dst + (map.origin + j * map.rowStep),
                        columnStep: map.columnStep)
                }
            }
        }
    }

    /// Only the width changes: each plane row resampled straight through `map`.
    func horizontalOnly(
        _ feed: inout RowFeed, _ wx: ResampleWeights, into dst: UnsafeMutablePointer<UInt8>, _ map: PixelMapping
    ) throws(CodecError) {
        let channels = feed.channels, samples = feed.planeWidth * channels
        let row = planeRow.pointer(count: samples)
        let floats = floatRow.pointer(count: ResamplePasses.rowFloats(wx, channels: channels))
        for y in 0..<feed.planeHeight {
            try feed.next(into: row)
            ResamplePasses.horizontal(
                UnsafePointer(row), stride: samples, rows: 1, weights: wx, channels: channels, floats: floats,
                into: dst, map.row(y))
        }
    }

    /// No Lanczos3: the source (or its box reduce, landed exactly on the target) copied
    /// through `map`; `direct` (an identity mapping) reads each row straight into the output.
    func copy(
        _ feed: inout RowFeed, into dst: UnsafeMutablePointer<UInt8>, _ map: PixelMapping, direct: Bool
    ) throws(CodecError) {
        let channels = feed.channels, width = feed.planeWidth, samples = width * channels
        let row = direct ? nil : planeRow.pointer(count: samples)
        for y in 0..<feed.planeHeight {
            guard let row else {
                try feed.next(into: dst + y * samples)
                continue
            }
            try feed.next(into: row)
            var d = dst + (map.origin + y * map.rowStep)
            for x in 0..<width {
                for c in 0..<channels { d[c] = row[x &* channels &+ c] }
                d += map.columnStep
            }
        }
    }

    /// Pointers to the `taps` ring rows from plane row `first` on (row `r` lives in slot
    /// `r % taps`), for one call of `body`.
    private func withRing<Sample>(
        _ ring: UnsafePointer<Sample>, first: Int, taps: Int, rowLength: Int,
        _ body: (UnsafePointer<UnsafePointer<Sample>>) -> Void
    ) {
        withUnsafeTemporaryAllocation(of: UnsafePointer<Sample>.self, capacity: taps) { rows in
            let r = rows.baseAddress!
            for k in 0..<taps { (r + k).initialize(to: ring + ((first + k) % taps) * rowLength) }
            body(UnsafePointer(r))
        }
    }
}

extension PixelMapping {
    /// The mapping for stored row `y` alone: a one-row pass written through it lands where
    /// row `y` of a whole-image pass would.
    func row(_ y: Int) -> PixelMapping {
        var shifted = self
        shifted.origin += y * rowStep
        return shifted
    }
}
