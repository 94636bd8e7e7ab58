import ImageCodecs

extension RowResizer {
    /// Rows shrink (or only the vertical axis changes): a ring of plane rows; each output row
    /// is the vertical pass over its taps, then (with `wx`) the horizontal pass of that one
    /// 16-bit row through `map`. Where the table allows (`exactForBytes`), output rows go in
    /// twos (`ResamplePasses.verticalRowPair`), so each ring row is widened to Float about half
    /// as often; the ring then holds `taps + maxStep` rows.
    func verticalFirst(
        _ feed: inout RowFeed, _ wy: ResampleWeights, then wx: ResampleWeights?,
        into dst: UnsafeMutablePointer<UInt8>, _ map: PixelMapping
    ) throws(CodecError) {
        let channels = feed.channels, width = feed.planeWidth, samples = width * channels, taps = wy.taps
        let pairs = wy.exactForBytes && wy.destination > 1 && wy.maxStep + 2 <= taps
        let slots = pairs ? taps + wy.maxStep : taps
        let ring = ring8.pointer(count: slots * samples)
        let acc = accumulator.pointer(count: max(samples, pairs ? ResamplePasses.pairSums(channels: channels) : 0))
        let tmp = wx == nil ? nil : row16.pointer(count: (pairs ? 2 : 1) * samples)
        let floats = wx.map { floatRow.pointer(count: ResamplePasses.rowFloats($0, channels: channels)) }
        /// Output rows `j ..< j + count`, vertically resampled into `tmp`, through the
        /// horizontal pass.
        func horizontal(_ j: Int, _ count: Int) {
            guard let wx, let tmp, let floats else { return }
            for i in 0..<count {
                ResamplePasses.horizontal(
                    UnsafePointer(tmp + i * samples), stride: samples, rows: 1, weights: wx, channels: channels,
                    floats: floats, into: dst, map.row(j + i))
            }
        }
        /// Where output row `j` goes without a horizontal pass: straight through `map`.
        func target(_ j: Int) -> UnsafeMutablePointer<UInt8> { dst + (map.origin + j * map.rowStep) }
        try wy.unitWeights.withUnsafeBufferPointer { (w) throws(CodecError) in
            var j = 0
            while j < wy.destination {
                let first = wy.starts[j]
                if pairs && j + 1 < wy.destination {
                    let step = wy.starts[j + 1] - first
                    while feed.produced < first + step + taps {
                        try feed.next(into: ring + (feed.produced % slots) * samples)
                    }
                    let w0 = w.baseAddress! + j * taps, w1 = w0 + taps
                    withRing(UnsafePointer(ring), first: first, count: step + taps, slots: slots, rowLength: samples) {
                        if let tmp {
                            ResamplePasses.verticalRowPair(
                                $0, step: step, w0, w1, taps: taps, width: width, channels: channels, sums: acc,
                                into: tmp, next: tmp + samples, columnStep: channels)
                        } else {
                            ResamplePasses.verticalRowPair(
                                $0, step: step, w0, w1, taps: taps, width: width, channels: channels, sums: acc,
                                into: target(j), next: target(j + 1), columnStep: map.columnStep)
                        }
                    }
                    horizontal(j, 2)
                    j += 2
                    continue
                }
                while feed.produced < first + taps { try feed.next(into: ring + (feed.produced % slots) * samples) }
                withRing(UnsafePointer(ring), first: first, count: taps, slots: slots, rowLength: samples) {
                    let wj = w.baseAddress! + j * taps
                    if let tmp {
                        ResamplePasses.verticalRow(
                            $0, weights: wj, taps: taps, width: width, channels: channels, accumulator: acc,
                            into: tmp, columnStep: channels)
                    } else {
                        ResamplePasses.verticalRow(
                            $0, weights: wj, taps: taps, width: width, channels: channels, accumulator: acc,
                            into: target(j), columnStep: map.columnStep)
                    }
                }
                horizontal(j, 1)
                j += 1
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
            withRing(UnsafePointer(ring), first: first, count: taps, slots: taps, rowLength: samples) { rows in
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

    /// Pointers to the `count` ring rows from plane row `first` on (row `r` lives in slot
    /// `r % slots`), for one call of `body`.
    private func withRing<Sample>(
        _ ring: UnsafePointer<Sample>, first: Int, count: Int, slots: Int, rowLength: Int,
        _ body: (UnsafePointer<UnsafePointer<Sample>>) -> Void
    ) {
        withUnsafeTemporaryAllocation(of: UnsafePointer<Sample>.self, capacity: count) { rows in
            let r = rows.baseAddress!
            for k in 0..<count { (r + k).initialize(to: ring + ((first + k) % slots) * rowLength) }
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
