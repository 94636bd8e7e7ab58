internal import CJPEGShim

/// The planar side of a `JPEGRowDecoder` opened with `JPEGCodec.withPlanes`: reads libjpeg's
/// raw component rows (`pa_jpeg_read_planes`, one iMCU row at a time; or `JPEGDCDecoder`'s at
/// 1/8, in the same layout), hands out the luma rows and reduces the chroma rows as they arrive
/// into two 4:2:0 planes held whole.
///
/// libjpeg hands chroma out at the size its IDCT made: half the luma size for 4:2:0 at 1/1,
/// but the luma size at the odd scales (jdmaster.c scales 4:2:0 chroma up by IDCT, 10x10 at
/// 5/8; the shim gives it the luma's 5x5 IDCT instead and writes it at its own scale, which is
/// copied as it is: `pa_jpeg_plane.own_scale`), half width and full height for 4:2:2, the luma
/// size for 4:4:4. Each is brought to
/// half width and height (rounded up) by averaging 2 or 4 samples (a 2:1 box, edges repeated),
/// so the planes are always the encoder's 4:2:0 and hold a quarter of the decoded size each.
/// 4:4:0 is taken too (full width, half height). Samplings whose chroma is not 1 or 2 luma
/// samples a side, as the sampling factors times the IDCT sizes say (4:1:1, or 3x1 luma with
/// 2x1 chroma, which libjpeg's upsampler refuses), are not: `init` returns nil.
final class JPEGPlaneCollector {
    /// Luma size at the decode scale.
    let width: Int
    let height: Int
    /// The two chroma planes, complete once every luma row is out.
    private(set) var cb: PixelBuffer
    private(set) var cr: PixelBuffer

    private let geometry: [pa_jpeg_plane]
    /// 1 or 2 per axis: how many stored chroma samples make one of the planes'.
    private let fx: Int
    private let fy: Int
    /// One iMCU row of every component, component after component (`groupBytes`), and a
    /// pointer to each of its rows, in the order `pa_jpeg_read_planes` takes them.
    private let group: UnsafeMutablePointer<UInt8>
    private let groupBytes: Int
    private var pointers: [UnsafeMutablePointer<UInt8>?] = []
    private var groupOffsets: [Int] = []
    /// Luma rows of the current group not handed out yet, from `lumaCursor`.
    private var lumaInGroup = 0
    private var lumaCursor = 0
    private(set) var lumaRowsOut = 0
    /// Chroma rows read per component (1, 2), and the row waiting for its pair (fy == 2).
    private var chromaRowsIn = [0, 0]
    private var pending: [[UInt8]]
    private var pendingValid = [false, false]

    /// Bytes this collector holds: the group rows, the pending rows and both chroma planes.
    var bytes: Int { groupBytes + pending.reduce(0) { $0 + $1.count } + cb.bytes.count + cr.bytes.count }

    init?(_ geometry: [pa_jpeg_plane], width: Int, height: Int) {
        guard Self.takes(geometry, width: width, height: height) else { return nil }
        let shapes = geometry.map(Shape.init)
        guard let (fx, fy) = Self.factors(luma: shapes[0], chroma: shapes[1]) else { return nil }
        self.geometry = geometry
        (self.width, self.height, self.fx, self.fy) = (width, height, fx, fy)
        let chroma = YCbCrPlanes.chromaSize(width: width, height: height)
        cb = PixelBuffer(width: chroma.width, height: chroma.height, layout: .gray)
        cr = cb
        var offset = 0
        for plane in geometry {
            groupOffsets.append(offset)
            offset += Int(plane.padded_width) * Int(plane.rows_per_group)
        }
        groupBytes = offset
        group = .allocate(capacity: offset)
        group.initialize(repeating: 0, count: offset)
        for (c, plane) in geometry.enumerated() {
            for r in 0..<Int(plane.rows_per_group) { pointers.append(group + groupOffsets[c] + r * Int(plane.padded_width)) }
        }
        let row = [UInt8](repeating: 0, count: fy == 2 ? Int(geometry[1].width) : 0)
        pending = [row, row]
    }

    deinit { group.deallocate() }

    /// Whether `init` takes these planes: three components, the luma `width` x `height`, both
    /// chroma components alike and sampled 1 or 2 luma samples a side (`factors`).
    static func takes(_ geometry: [pa_jpeg_plane], width: Int, height: Int) -> Bool {
        guard geometry.count == 3, Int(geometry[0].width) == width, Int(geometry[0].height) == height else { return false }
        let shapes = geometry.map(Shape.init)
        return shapes[1] == shapes[2] && factors(luma: shapes[0], chroma: shapes[1]) != nil
    }

    /// One component as the factors need it: its size at the decode scale, its sampling factors
    /// and its IDCT size (libjpeg may give chroma a larger one than luma: jdmaster.c).
    struct Shape: Equatable {
        var width: Int
        var height: Int
        var hSamp: Int
        var vSamp: Int
        var dctSize: Int

        init(width: Int, height: Int, hSamp: Int, vSamp: Int, dctSize: Int) {
            (self.width, self.height, self.hSamp, self.vSamp, self.dctSize) = (width, height, hSamp, vSamp, dctSize)
        }

        init(_ plane: pa_jpeg_plane) {
            let vSamp = max(Int(plane.v_samp_factor), 1)
            self.init(
                width: Int(plane.width), height: Int(plane.height), hSamp: Int(plane.h_samp_factor), vSamp: vSamp,
                dctSize: Int(plane.rows_per_group) / vSamp)
        }
    }

    /// How many stored chroma samples make one sample of the planes, per axis (2 when libjpeg
    /// hands chroma out at the luma size, 1 when at half of it), or nil. The ratio comes from
    /// the sampling: luma covers `hSamp × dctSize` samples of an MCU row where the chroma covers
    /// its own, and it must be a whole 1 or 2; the sizes must then agree with it.
    ///
    ///     factors(luma: Shape(width: 2040, height: 1530, hSamp: 2, vSamp: 2, dctSize: 5),
    ///             chroma: Shape(width: 2040, height: 1530, hSamp: 1, vSamp: 1, dctSize: 10))  // (2, 2): 4:2:0 at 5/8
    static func factors(luma: Shape, chroma: Shape) -> (fx: Int, fy: Int)? {
        let across = (luma.hSamp * luma.dctSize, chroma.hSamp * chroma.dctSize)
        let down = (luma.vSamp * luma.dctSize, chroma.vSamp * chroma.dctSize)
        guard across.1 > 0, down.1 > 0, across.0 % across.1 == 0, down.0 % down.1 == 0,
            let fx = factor(chroma.width, of: luma.width, ratio: across.0 / across.1),
            let fy = factor(chroma.height, of: luma.height, ratio: down.0 / down.1)
        else { return nil }
        return (fx, fy)
    }

    /// For `ratio` luma samples per chroma sample: 2 when the plane is the full size (averaged
    /// two at a time), 1 when it is half of it (rounded up); nil when the size disagrees.
    private static func factor(_ plane: Int, of full: Int, ratio: Int) -> Int? {
        switch ratio {
        case 1 where plane == full: return full > 1 ? 2 : 1
        case 2 where plane == (full + 1) / 2: return 1
        default: return nil
        }
    }

    /// Reads one group into the row pointers (`pa_jpeg_read_planes`' layout): the luma lines it
    /// covers (0 when nothing was written), or nil on a failure.
    typealias GroupReader = (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int?

    /// The group reader over libjpeg's raw-data interface.
    static func libjpeg(_ decoder: OpaquePointer) -> GroupReader {
        { rows in
            var lines: UInt32 = 0
            return pa_jpeg_read_planes(decoder, rows, &lines) == PA_JPEG_OK ? Int(lines) : nil
        }
    }

    /// Copies up to `count` luma rows into `buffer`, reading groups with `read` as needed.
    func readLuma(_ read: GroupReader, into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: Int)
        -> (rows: Int, failed: Bool)
    {
        var done = 0
        while done < count && lumaRowsOut < height {
            if lumaInGroup == 0 {
                if !readGroup(read) { return (done, true) }
                if lumaInGroup == 0 { break }
            }
            let n = min(count - done, lumaInGroup)
            let padded = Int(geometry[0].padded_width)
            for i in 0..<n {
                (buffer + (done + i) * stride).update(from: group + (lumaCursor + i) * padded, count: width)
            }
            lumaCursor += n
            lumaInGroup -= n
            lumaRowsOut += n
            done += n
        }
        if lumaRowsOut == height { flushPending() }
        return (done, false)
    }

    /// One group read; its chroma rows reduced into the planes at once.
    private func readGroup(_ read: GroupReader) -> Bool {
        guard let lines = pointers.withUnsafeMutableBufferPointer({ read($0.baseAddress!) }) else { return false }
        // No lines: nothing was written (only a suspending source does that), so no chroma either.
        guard lines > 0 else { return true }
        lumaCursor = 0
        lumaInGroup = min(Int(lines), height - lumaRowsOut)
        for c in 1...2 {
            let plane = geometry[c]
            let rows = min(Int(plane.rows_per_group), Int(plane.height) - chromaRowsIn[c - 1])
            if rows > 0 { absorb(c, rows: rows) }
        }
        return true
    }
}

extension JPEGPlaneCollector {
    /// Reduces `rows` stored rows of chroma component `c` (1 or 2), now in the group, into its plane.
    private func absorb(_ c: Int, rows: Int) {
        let k = c - 1
        let padded = Int(geometry[c].padded_width), sourceWidth = Int(geometry[c].width)
        let (fx, fy, first, source0) = (self.fx, self.fy, chromaRowsIn[k], UnsafePointer(group + groupOffsets[c]))
        if geometry[c].own_scale != 0 {
            // Already at the planes' scale, in the first half of the group's rows and of each row
            // (`pa_jpeg_plane.own_scale`): what the mean of each 2x2 square of the luma-sized
            // rows was. `first` is even: every group but the last has 2N rows.
            withPlane(k) { plane, stride in
                let (count, lines) = ((sourceWidth + 1) / 2, (rows + 1) / 2)
                for r in 0..<lines {
                    (plane + (first / 2 + r) * stride).update(from: source0 + r * padded, count: count)
                }
            }
            chromaRowsIn[k] += rows
            return
        }
        var waiting = pendingValid[k]
        do {
            pending[k].withUnsafeMutableBufferPointer { p in
                withPlane(k) { plane, stride in
                    for r in 0..<rows {
                        let source = source0 + r * padded
                        let row = first + r
                        if fy == 1 {
                            Self.reduce(source, source, width: sourceWidth, fx: fx, into: plane + row * stride)
                        } else if waiting {
                            Self.reduce(p.baseAddress!, source, width: sourceWidth, fx: fx, into: plane + row / 2 * stride)
                            waiting = false
                        } else {
                            p.baseAddress!.update(from: source, count: sourceWidth)
                            waiting = true
                        }
                    }
                }
            }
        }
        pendingValid[k] = waiting
        chromaRowsIn[k] += rows
    }

    /// The last row of an odd-height plane, paired with itself.
    fileprivate func flushPending() {
        for k in 0..<2 where pendingValid[k] {
            let (row, sourceWidth, fx) = ((chromaRowsIn[k] - 1) / 2, Int(geometry[k + 1].width), self.fx)
            pending[k].withUnsafeBufferPointer { p in
                withPlane(k) { plane, stride in
                    Self.reduce(p.baseAddress!, p.baseAddress!, width: sourceWidth, fx: fx, into: plane + row * stride)
                }
            }
            pendingValid[k] = false
        }
    }

    private func withPlane(_ k: Int, _ body: (UnsafeMutablePointer<UInt8>, Int) -> Void) {
        if k == 0 {
            let stride = cb.stride
            cb.withUnsafeMutableBytes { body($0.baseAddress!, stride) }
        } else {
            let stride = cr.stride
            cr.withUnsafeMutableBytes { body($0.baseAddress!, stride) }
        }
    }

    /// The 16 bytes as 16-bit lanes: two `punpck`s against zero (the generic conversion
    /// initialiser is not inlined here).
    @inline(__always)
    private static func widen(_ v: SIMD16<UInt8>) -> SIMD16<UInt16> {
        let zero = SIMD16<UInt8>()
        let lo = SIMD16(v[0], zero[0], v[1], zero[1], v[2], zero[2], v[3], zero[3], v[4], zero[4], v[5], zero[5], v[6], zero[6], v[7], zero[7])
        let hi = SIMD16(v[8], zero[8], v[9], zero[9], v[10], zero[10], v[11], zero[11], v[12], zero[12], v[13], zero[13], v[14], zero[14], v[15], zero[15])
        return SIMD16(lowHalf: unsafeBitCast(lo, to: SIMD8<UInt16>.self), highHalf: unsafeBitCast(hi, to: SIMD8<UInt16>.self))
    }

    /// 8 lanes already in 0...255 as bytes.
    @inline(__always)
    private static func narrow(_ v: SIMD8<UInt16>) -> SIMD8<UInt8> {
        let b = unsafeBitCast(v, to: SIMD16<UInt8>.self)
        return SIMD8(b[0], b[2], b[4], b[6], b[8], b[10], b[12], b[14])
    }

    /// One plane row from rows `a` and `b` (the same row when nothing is paired vertically):
    /// each output sample the rounded mean of `fx` neighbours in each, the last repeated when
    /// `width` is odd. With `fx` 1 and `a == b` a copy.
    static func reduce(
        _ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, width: Int, fx: Int, into out: UnsafeMutablePointer<UInt8>
    ) {
        let outWidth = fx == 2 ? (width + 1) / 2 : width
        var x = 0
        if fx == 1 && a == b {
            out.update(from: a, count: width)
            return
        }
        if fx == 2 {
            // 8 outputs from 16 samples of each row: widen, add the rows, add lane pairs.
            while 2 * x + 16 <= width {
                let ra = UnsafeRawPointer(a + 2 * x).loadUnaligned(as: SIMD16<UInt8>.self)
                let rb = UnsafeRawPointer(b + 2 * x).loadUnaligned(as: SIMD16<UInt8>.self)
                let sum = widen(ra) &+ widen(rb)
                let mean = (sum.evenHalf &+ sum.oddHalf &+ 2) &>> 2
                UnsafeMutableRawPointer(out + x).storeBytes(of: narrow(mean), as: SIMD8<UInt8>.self)
                x += 8
            }
        } else {
            while x + 16 <= width {
                let ra = widen(UnsafeRawPointer(a + x).loadUnaligned(as: SIMD16<UInt8>.self))
                let rb = widen(UnsafeRawPointer(b + x).loadUnaligned(as: SIMD16<UInt8>.self))
                let mean = (ra &+ rb &+ 1) &>> 1
                UnsafeMutableRawPointer(out + x).storeBytes(of: narrow(mean.lowHalf), as: SIMD8<UInt8>.self)
                UnsafeMutableRawPointer(out + x + 8).storeBytes(of: narrow(mean.highHalf), as: SIMD8<UInt8>.self)
                x += 16
            }
        }
        while x < outWidth {
            let x0 = fx * x, x1 = fx == 2 ? min(x0 + 1, width - 1) : x0
            let sum = Int(a[x0]) + Int(a[x1]) + Int(b[x0]) + Int(b[x1])
            out[x] = UInt8(truncatingIfNeeded: (sum + 2) >> 2)
            x += 1
        }
    }
}
