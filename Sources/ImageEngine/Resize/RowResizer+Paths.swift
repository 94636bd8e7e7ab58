import ImageCodecs

extension RowResizer {
    /// Rows shrink (or only the vertical axis changes): a ring of plane rows; each output row
    /// is the vertical pass over its taps, then (with `wx`) the horizontal pass of that one
    /// 16-bit row through `map`. Where the table allows (`exactForBytes`), output rows go in
    /// twos (`ResamplePasses.verticalRowPair`), so each ring row is widened to Float about half
    /// as often; the ring then holds `taps + maxStep` rows. Into the 16-bit row, a table that
    /// `fitsInt16` (every Lanczos3 table) runs `ResamplePasses.verticalBytes` instead: the same
    /// bits in Int32 fixed point, about half the instructions.
    func verticalFirst(
        _ feed: inout RowFeed, _ wy: ResampleWeights, then wx: ResampleWeights?,
        into dst: UnsafeMutablePointer<UInt8>, _ map: PixelMapping
    ) throws(CodecError) {
        let channels = feed.channels, samples = feed.planeWidth * channels, taps = wy.taps
        // `verticalBytes` takes any two outputs; the Float pair needs two shared rows.
        let integer = wx != nil && wy.fixedPoint
        let pairs = wy.destination > 1 && (integer || (wy.exactForBytes && wy.maxStep + 2 <= taps))
        let slots = pairs ? taps + wy.maxStep : taps
        let pass = VerticalFirstPass(
            wy: wy, wx: wx, channels: channels, width: feed.planeWidth, samples: samples, slots: slots,
            ring: ring8.pointer(count: slots * samples),
            acc: accumulator.pointer(count: max(samples, pairs ? ResamplePasses.pairSums(channels: channels) : 0)),
            tmp: wx == nil ? nil : row16.pointer(count: (pairs ? 2 : 1) * samples),
            floats: wx.map { floatRow.pointer(count: ResamplePasses.rowFloats($0, channels: channels)) },
            dst: dst, map: map)
        try wy.unitWeights.withUnsafeBufferPointer { (w) throws(CodecError) in
            var j = 0
            while j < wy.destination {
                if pairs && j + 1 < wy.destination {
                    try pass.pair(j, w.baseAddress! + j * taps, &feed)
                    j += 2
                } else {
                    try pass.single(j, w.baseAddress! + j * taps, &feed)
                    j += 1
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
            Self.withRing(UnsafePointer(ring), first: first, count: taps, slots: taps, rowLength: samples) { rows in
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
    fileprivate static func withRing<Sample>(
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

/// One `verticalFirst` resize: the ring of plane rows, the scratch rows, and where output rows go.
private struct VerticalFirstPass {
    let wy: ResampleWeights
    let wx: ResampleWeights?
    let channels: Int, width: Int, samples: Int, slots: Int
    let ring: UnsafeMutablePointer<UInt8>
    let acc: UnsafeMutablePointer<Float>
    /// The vertically resampled 16-bit row(s), when a horizontal pass follows.
    let tmp: UnsafeMutablePointer<Int16>?
    let floats: UnsafeMutablePointer<Float>?
    let dst: UnsafeMutablePointer<UInt8>
    let map: PixelMapping
    var taps: Int { wy.taps }

    /// Reads plane rows into the ring until row `end` (exclusive) is in it.
    func fill(_ feed: inout RowFeed, upTo end: Int) throws(CodecError) {
        while feed.produced < end { try feed.next(into: ring + (feed.produced % slots) * samples) }
    }

    /// Output rows `j` and `j + 1` from one pass over the ring (their taps overlap).
    func pair(_ j: Int, _ w0: UnsafePointer<Float>, _ feed: inout RowFeed) throws(CodecError) {
        let first = wy.starts[j]
        let step = wy.starts[j + 1] - first
        try fill(&feed, upTo: first + step + taps)
        let w1 = w0 + taps
        RowResizer.withRing(UnsafePointer(ring), first: first, count: step + taps, slots: slots, rowLength: samples) {
            if let tmp, wy.fixedPoint {
                ResamplePasses.verticalBytes(
                    $0, step: step, w0, w1, taps: taps, samples: samples, into: tmp, next: tmp + samples)
            } else if let tmp {
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
    }

    /// Output row `j` alone.
    func single(_ j: Int, _ wj: UnsafePointer<Float>, _ feed: inout RowFeed) throws(CodecError) {
        let first = wy.starts[j]
        try fill(&feed, upTo: first + taps)
        RowResizer.withRing(UnsafePointer(ring), first: first, count: taps, slots: slots, rowLength: samples) {
            if let tmp, wy.fixedPoint {
                ResamplePasses.verticalBytes(
                    $0, step: 0, wj, nil, taps: taps, samples: samples, into: tmp, next: nil)
            } else if let tmp {
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
    }

    /// Output rows `j ..< j + count`, vertically resampled into `tmp`, through the horizontal pass.
    func horizontal(_ j: Int, _ count: Int) {
        guard let wx, let tmp, let floats else { return }
        // Both rows of a pair in one call: they share each output pixel's weights.
        ResamplePasses.horizontal(
            UnsafePointer(tmp), stride: samples, rows: count, weights: wx, channels: channels, floats: floats,
            into: dst, map.row(j))
    }

    /// Where output row `j` goes without a horizontal pass: straight through `map`.
    func target(_ j: Int) -> UnsafeMutablePointer<UInt8> { dst + (map.origin + j * map.rowStep) }
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
