internal import CLCMS2

/// lcms2's conversion of 8-bit CMYK to 8-bit RGB, bit for bit, in our own loop over lcms2's own
/// table, in about 0.6 of lcms2's time on the same pixels.
///
///     guard let table = CMYKLookupTable(nodes: captured, checkedAgainst: transform, inverted: true)
///     else { return }   // convert through lcms2
///     table.convert(cmyk, stride: w * 4, into: rgb, stride: w * 3, width: w, rows: n, inverted: true)
///
/// An 8-bit CMYK transform in lcms2 2.14 is a 17⁴-node table of 16-bit RGB (the profile chain
/// resampled, `OptimizeByResampling`, its white node patched) read through `Eval4Inputs`: two
/// tetrahedral interpolations over the last three inputs, at the two nodes of the first,
/// blended linearly, all in 16.16 fixed point, with each pixel unpacked and packed through
/// function pointers and a one-pixel cache. That costs about 48 ns a pixel here (perf: the
/// corpus CMYK photo's 166,500 pixels took 8 ms, 61 % of its thumbnail). This type takes that
/// table, as lcms2's optimiser made it (`CMYKColorTransform` reads it from inside
/// `cmsCreateTransform`, `nodes(of:)`), and does the same integer arithmetic inline, lcms2's
/// expressions and wrap-arounds kept:
/// - a byte `b` enters as lcms2 unpacks it, `b × 257` (Adobe-inverted, as `TYPE_CMYK_8_REV`:
///   `(255 − b) × 257`), and a 16-bit result leaves as lcms2 packs it, `(v × 65281 + 2²³) >> 24`;
/// - `init` compares its own conversion of 8,208 check pixels with the transform's and gives up
///   (nil, lcms2 converts) on any difference: a sample, which catches a table read in the wrong
///   layout or order, not an error confined to a few nodes it does not visit.
///
/// `CMYKLookupTableTests` holds it to lcms2's own 8-bit transform on 334,256 pixels (a sweep
/// of every channel's nodes, neighbours and ends, and random ones), plain and inverted, for
/// the default profile, a press profile and a 3-point one.
/// - Complexity: O(1) a pixel: 24 table reads; 0.5 MB of table (17⁴ nodes × 3 × 2 bytes).
struct CMYKLookupTable: Sendable {
    /// Nodes on each input axis: lcms2's grid for CMYK input (`_cmsReasonableGridpointsByColorspace`);
    /// `nodes(of:)` refuses any other.
    static let gridPoints = 17
    /// Table entries from one node to the next, per input (C slowest, then M, Y, K; 3 outputs).
    static let strides: [Int32] = [17 * 17 * 17 * 3, 17 * 17 * 3, 17 * 3, 3]

    /// The node values, 3 per node: lcms2's layout.
    private let nodes: [UInt16]
    /// The per-byte tables in one array (`Axes` says where each starts): per axis and input byte
    /// (after inversion), `axis * 256 + byte`, the offset of the node below and the step to the
    /// next one (0 at 255, where lcms2 reads no next node); per byte, the 16-bit fraction past
    /// the node below (the same on every axis).
    private let axes: [Int32]

    /// The table `nodes` (lcms2's, read by `CMYKColorTransform`'s optimisation plugin:
    /// `nodes(of:)`), or nil when there is none or our conversion through it differs from
    /// `transform`'s on the check pixels (`agrees`): the caller then converts through lcms2.
    /// `transform` is the lcms2 `TYPE_CMYK_8` (`_REV` when `inverted`) → `TYPE_RGB_8`
    /// transform the table was made for.
    init?(nodes: [UInt16]?, checkedAgainst transform: cmsHTRANSFORM, inverted: Bool) {
        let n = Self.gridPoints
        guard let nodes, nodes.count == n * n * n * n * 3 else { return nil }
        self.nodes = nodes
        axes = Self.axes()
        guard agrees(with: transform, inverted: inverted) else { return nil }
    }

    /// The node values of `pipeline` when it is one 4-input, 3-output table of `gridPoints`
    /// nodes an axis (what lcms2's `OptimizeByResampling` makes of a CMYK → RGB transform):
    /// `cmsStageSampleCLut16bit` with `SAMPLER_INSPECT` hands out each node's values in the
    /// table's own order.
    static func nodes(of pipeline: OpaquePointer) -> [UInt16]? {
        guard let table = cmsPipelineGetPtrToFirstStage(pipeline), cmsStageNext(table) == nil,
            cmsStageType(table) == cmsSigCLutElemType, cmsStageInputChannels(table) == 4,
            cmsStageOutputChannels(table) == 3
        else { return nil }
        let box = NodeCollector()
        box.values.reserveCapacity(gridPoints * gridPoints * gridPoints * gridPoints * 3)
        let visited = cmsStageSampleCLut16bit(
            table, collectNode, Unmanaged.passUnretained(box).toOpaque(), UInt32(SAMPLER_INSPECT))
        let n = gridPoints
        guard visited != 0, box.values.count == n * n * n * n * 3 else { return nil }
        return box.values
    }

    /// The per-byte offsets and fractions: lcms2's `Eval4Inputs` start for a byte b entering as
    /// b × 257.
    private static func axes() -> [Int32] {
        var tables = [Int32](repeating: 0, count: Axes.count)
        for b in 0..<256 {
            let value = Int32(b * 257)
            let fixed = toFixedDomain(value &* Int32(gridPoints - 1))
            tables[Axes.rest + b] = fixed & 0xFFFF
            for axis in 0..<4 {
                tables[Axes.below + axis * 256 + b] = (fixed >> 16) &* strides[axis]
                tables[Axes.step + axis * 256 + b] = value == 0xFFFF ? 0 : strides[axis]
            }
        }
        return tables
    }

    /// Our conversion of 8,208 check pixels (the 16 corners of the CMYK cube, then seeded
    /// random ones) against `transform`'s, whose input is `inverted` or not.
    private func agrees(with transform: cmsHTRANSFORM, inverted: Bool) -> Bool {
        var cmyk: [UInt8] = []
        for corner in 0..<16 { cmyk += (0..<4).map { corner >> $0 & 1 == 1 ? 255 : 0 } }
        var state: UInt64 = 0x5EED
        for _ in 0..<(8192 * 4) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            cmyk.append(UInt8(truncatingIfNeeded: state >> 56))
        }
        let count = cmyk.count / 4
        var theirs = [UInt8](repeating: 0, count: count * 3), ours = theirs
        cmyk.withUnsafeBytes { src in
            theirs.withUnsafeMutableBytes { cmsDoTransform(transform, src.baseAddress, $0.baseAddress, UInt32(count)) }
        }
        cmyk.withUnsafeBufferPointer { src in
            ours.withUnsafeMutableBufferPointer { dst in
                convert(
                    src.baseAddress!, stride: count * 4, into: dst.baseAddress!, stride: count * 3, width: count,
                    rows: 1, inverted: inverted)
            }
        }
        return ours == theirs
    }

    /// Converts `rows` rows of `width` CMYK pixels (4 bytes each, `sourceStride` apart) to RGB
    /// (3 bytes each, `destinationStride` apart); `inverted` for Adobe CMYK (0 = full ink).
    func convert(
        _ source: UnsafePointer<UInt8>, stride sourceStride: Int, into destination: UnsafeMutablePointer<UInt8>,
        stride destinationStride: Int, width: Int, rows: Int, inverted: Bool
    ) {
        nodes.withUnsafeBufferPointer { t in
            axes.withUnsafeBufferPointer { tables in
                let axes = Axes(tables.baseAddress!)
                let flip: Int = inverted ? 255 : 0
                for row in 0..<rows {
                    var src = source + row &* sourceStride, dst = destination + row &* destinationStride
                    var previous: UInt32? = nil
                    for _ in 0..<width {
                        let packed = UnsafeRawPointer(src).loadUnaligned(as: UInt32.self)
                        if packed != previous {
                            // A run of one colour converts once (lcms2's one-pixel cache).
                            Self.pixel(
                                Int(src[0]) ^ flip, Int(src[1]) ^ flip, Int(src[2]) ^ flip, Int(src[3]) ^ flip,
                                t.baseAddress!, axes, into: dst)
                            previous = packed
                        } else {
                            dst[0] = dst[-3]
                            dst[1] = dst[-2]
                            dst[2] = dst[-1]
                        }
                        src += 4
                        dst += 3
                    }
                }
            }
        }
    }

    /// The per-byte tables, as pointers into `axes` for the pixel loop.
    private struct Axes {
        /// Where each table starts in the one array, and its length.
        static let below = 0, step = 4 * 256, rest = 8 * 256, count = 9 * 256
        let below: UnsafePointer<Int32>
        let step: UnsafePointer<Int32>
        let rest: UnsafePointer<Int32>

        init(_ tables: UnsafePointer<Int32>) {
            below = tables + Self.below
            step = tables + Self.step
            rest = tables + Self.rest
        }
    }

    /// One pixel: lcms2's `Eval4Inputs` and its 8-bit packing. The three inner axes are taken
    /// in the order of their fractions, largest first: that is lcms2's six tetrahedra as one
    /// path from the node below to the node above (where two fractions are equal, either
    /// order gives the same sum, exactly).
    @inline(__always)
    private static func pixel(
        _ c: Int, _ m: Int, _ y: Int, _ k: Int, _ table: UnsafePointer<UInt16>, _ a: Axes,
        into dst: UnsafeMutablePointer<UInt8>
    ) {
        let k0 = Int(a.below[c]), k1 = k0 &+ Int(a.step[c]), rk = a.rest[c]
        var first = (step: a.step[256 &+ m], r: a.rest[m])
        var second = (step: a.step[512 &+ y], r: a.rest[y])
        var third = (step: a.step[768 &+ k], r: a.rest[k])
        // Selects, not branches: the order changes from pixel to pixel, and a mispredicted
        // branch costs more than the whole exchange.
        order(&first, &second)
        order(&second, &third)
        order(&first, &second)
        let o0 = Int(a.below[256 &+ m] &+ a.below[512 &+ y] &+ a.below[768 &+ k])
        let o1 = o0 &+ Int(first.step), o2 = o1 &+ Int(second.step), o3 = o2 &+ Int(third.step)
        for channel in 0..<3 {
            func tetrahedral(_ base: Int) -> Int32 {
                let p0 = Int32(table[base &+ o0]), p1 = Int32(table[base &+ o1])
                let p2 = Int32(table[base &+ o2]), p3 = Int32(table[base &+ o3])
                let sum = (p1 &- p0) &* first.r &+ (p2 &- p1) &* second.r &+ (p3 &- p2) &* third.r
                return Int32(UInt16(truncatingIfNeeded: p0 &+ ((toFixedDomain(sum) &+ 0x8000) >> 16)))
            }
            let low = tetrahedral(k0 &+ channel), high = tetrahedral(k1 &+ channel)
            // lcms2's LinearInterp, in its unsigned 32-bit arithmetic.
            let blend = (UInt32(bitPattern: high &- low) &* UInt32(bitPattern: rk) &+ 0x8000) >> 16
            let value = UInt32(UInt16(truncatingIfNeeded: blend &+ UInt32(bitPattern: low)))
            dst[channel] = UInt8(truncatingIfNeeded: (value &* 65281 &+ 8_388_608) >> 24)
        }
    }

    /// Puts the axis with the larger fraction first.
    @inline(__always)
    private static func order(_ a: inout (step: Int32, r: Int32), _ b: inout (step: Int32, r: Int32)) {
        let exchange = a.r < b.r
        let larger = (step: exchange ? b.step : a.step, r: exchange ? b.r : a.r)
        let smaller = (step: exchange ? a.step : b.step, r: exchange ? a.r : b.r)
        a = larger
        b = smaller
    }

    /// lcms2's `_cmsToFixedDomain`: 0...0xFFFF onto 0...0x10000, in C's truncating division.
    @inline(__always)
    static func toFixedDomain(_ a: Int32) -> Int32 { a &+ ((a &+ 0x7FFF) / 0xFFFF) }
}

/// The node values `cmsStageSampleCLut16bit` hands out, in its order.
private final class NodeCollector {
    var values: [UInt16] = []
}

/// `cmsStageSampleCLut16bit`'s callback under `SAMPLER_INSPECT`: `values` holds the node's
/// table entries (3 here), appended; nothing is written back.
private func collectNode(
    _ input: UnsafePointer<UInt16>?, _ values: UnsafeMutablePointer<UInt16>?, _ cargo: UnsafeMutableRawPointer?
) -> Int32 {
    guard let values, let cargo else { return 0 }
    let box = Unmanaged<NodeCollector>.fromOpaque(cargo).takeUnretainedValue()
    box.values.append(contentsOf: UnsafeBufferPointer(start: values, count: 3))
    return 1
}
