/// An integer box shrink run before Lanczos3 when the reduction is large, as libvips'
/// shrinkh/shrinkv do: each output pixel is the mean of an `fx × fy` block (smaller at the
/// right and bottom edges), so the filter that follows only has a small factor left.
///
///     let f = BoxReduce.factor(source: 5760, destination: 256)   // 11: 5760 → 524 → 256
///
/// Summing is a vectorisable row-add into a UInt32 row; one division per output sample.
/// `reduce` works on a whole plane (`Resizer`); `add` and `average` are its two steps, which
/// `RowResizer` runs a source row at a time.
enum BoxReduce {
    /// Outputs shorter than this are filtered by Lanczos3 alone: with few box pixels, the
    /// partial block at the edge would weigh too much (and pure Lanczos3 is cheap there anyway).
    static let minimumDestination = 16

    /// The shrink factor for one axis: floor(scale / 2) when that is at least 2, else 1, so
    /// Lanczos3 still does at least a 2× reduction and keeps its sharpness.
    static func factor(source: Int, destination: Int) -> Int {
        guard destination >= minimumDestination else { return 1 }
        let f = source / (2 * destination)
        return f >= 2 ? f : 1
    }

    /// ceil(source / factor).
    static func reducedLength(_ source: Int, factor: Int) -> Int { (source + factor - 1) / factor }

    /// Box-averages `src` into the packed `dst`; with `premultiply` (RGBA only) colour is
    /// multiplied by alpha before summing, so `dst` comes out premultiplied.
    /// `rowSums` holds `width × channels` UInt32s.
    static func reduce(
        _ src: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, channels: Int,
        fx: Int, fy: Int, premultiply: Bool, rowSums: UnsafeMutablePointer<UInt32>,
        into dst: UnsafeMutablePointer<UInt8>
    ) {
        let outW = reducedLength(width, factor: fx), outH = reducedLength(height, factor: fy)
        var d = dst
        for oy in 0..<outH {
            let y0 = oy &* fy, y1 = min(height, y0 &+ fy)
            rowSums.update(repeating: 0, count: width &* channels)
            for y in y0..<y1 {
                add(src + y &* stride, width: width, channels: channels, premultiply: premultiply, into: rowSums)
            }
            average(rowSums, width: width, channels: channels, fx: fx, rows: y1 &- y0, into: d)
            d += outW &* channels
        }
    }

    /// Adds one source row to `sums` (`width × channels` UInt32s), colour times alpha with
    /// `premultiply` (RGBA only). A row whose alpha is all 255 adds the same either way.
    @inline(__always)
    static func add(
        _ row: UnsafePointer<UInt8>, width: Int, channels: Int, premultiply: Bool, into sums: UnsafeMutablePointer<UInt32>
    ) {
        if premultiply {
            addPremultiplied(row, sums, width)
        } else {
            for b in 0..<(width &* channels) { sums[b] &+= UInt32(row[b]) }
        }
    }

    /// Writes one reduced row: the mean of each `fx`-wide block of `sums`, which hold `rows`
    /// source rows (rounded to nearest).
    @inline(__always)
    static func average(
        _ sums: UnsafePointer<UInt32>, width: Int, channels: Int, fx: Int, rows: Int,
        into dst: UnsafeMutablePointer<UInt8>
    ) {
        let outW = reducedLength(width, factor: fx), n = UInt32(rows)
        switch channels {
        case 1: averageBlocks(sums, width, fx, n, outW, dst, channels: 1)
        case 3: averageBlocks(sums, width, fx, n, outW, dst, channels: 3)
        default: averageBlocks(sums, width, fx, n, outW, dst, channels: 4)
        }
    }

    @inline(__always)
    private static func addPremultiplied(
        _ row: UnsafePointer<UInt8>, _ sums: UnsafeMutablePointer<UInt32>, _ width: Int
    ) {
        for x in 0..<width {
            let p = row + x &* 4, s = sums + x &* 4
            let a = UInt32(p[3])
            s[0] &+= UInt32(Premultiply.mul255(UInt32(p[0]), a))
            s[1] &+= UInt32(Premultiply.mul255(UInt32(p[1]), a))
            s[2] &+= UInt32(Premultiply.mul255(UInt32(p[2]), a))
            s[3] &+= a
        }
    }

    @inline(__always)
    private static func averageBlocks(
        _ sums: UnsafePointer<UInt32>, _ width: Int, _ fx: Int, _ rows: UInt32, _ outW: Int,
        _ dst: UnsafeMutablePointer<UInt8>, channels: Int
    ) {
        for ox in 0..<outW {
            let x0 = ox &* fx, x1 = min(width, x0 &+ fx)
            let n = UInt32(x1 &- x0) &* rows
            for c in 0..<channels {
                var total: UInt32 = 0
                for x in x0..<x1 { total &+= sums[x &* channels &+ c] }
                dst[ox &* channels &+ c] = UInt8(truncatingIfNeeded: (total &+ n / 2) / n)
            }
        }
    }
}
