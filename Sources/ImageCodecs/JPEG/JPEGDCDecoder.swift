internal import CJPEGShim
import MediaTypes

/// A baseline JPEG read for its DC coefficients only: each component at 1/8 scale, one sample
/// per 8x8 block, the same samples libjpeg's 1x1 IDCT makes at scale 1/8.
///
/// At 1/8 the output of a block is its DC coefficient alone, but libjpeg still decodes every AC
/// coefficient into the block (zeroed first, each value extended and stored). Here each AC code is
/// only skipped: one table lookup gives the bits of two or three codes with their values and how
/// far they move along the block (`HuffmanLookup`). Every entropy-coded bit is still read, so a
/// damaged stream is found as libjpeg finds it; but nothing here warns: anything libjpeg would
/// warn about or handle specially (a premature or wrong marker, junk before one, a bad code, a
/// restart out of place, arithmetic coding, progressive or multi-scan files, 12-bit samples)
/// makes `init` or `readGroup` return nil, and the caller decodes with libjpeg, which reports it.
///
/// It reads as libjpeg's raw-data interface does, one MCU row (a group) per call, so
/// `JPEGPlaneCollector` takes its rows as it takes libjpeg's:
///
///     guard var reader = JPEGDCDecoder(bytes),                  // nil: decode with libjpeg
///         let collector = JPEGPlaneCollector(reader.geometry, width: (w + 7) / 8, height: (h + 7) / 8)
///     else { return nil }
///     let (rows, failed) = collector.readLuma({ reader.readGroup($0) }, into: luma, stride: stride, count: rowsWanted)
///     guard !failed, reader.finish() else { return nil }        // finish: the EOI marker next
struct JPEGDCDecoder {
    /// Each component's plane at 1/8, as `pa_jpeg_plane_geometry` describes libjpeg's: the
    /// size in samples (`(componentWidth + 7) / 8`), the row length a group writes (whole MCUs)
    /// and the rows per group (the vertical sampling factor).
    let geometry: [pa_jpeg_plane]
    private let scan: Scan
    private let restartInterval: Int
    private let bytes: UnsafeRawBufferPointer
    private var state: BitState
    private var progress = Progress()

    /// Where the reading stands between groups.
    struct Progress {
        var predictions = (0, 0, 0, 0)
        var sinceRestart = 0
        var nextRestart = 0
        var mcuRow = 0
    }

    /// The headers of a single-scan, Huffman-coded, 8-bit baseline or extended-sequential JPEG
    /// read up to its scan; nil for anything else. `bytes` must outlive the reader.
    init?(_ bytes: UnsafeRawBufferPointer) {
        // The shared walker: SOI, then the segments up to and including the first SOS.
        guard let segments = try? JPEGSegments.read(bytes), let sos = segments.last, sos.marker == 0xDA else {
            return nil
        }
        var headers = Headers()
        for segment in segments.dropLast() {
            let payload = segment.payloadRange
            switch segment.marker {
            case 0xC0, 0xC1:
                guard headers.frame == nil, let frame = Frame(bytes, payload) else { return nil }
                headers.frame = frame
            case 0xC4:
                guard headers.readHuffman(bytes, payload) else { return nil }
            case 0xDB:
                guard headers.readQuantization(bytes, payload) else { return nil }
            case 0xDD:
                guard payload.count == 2 else { return nil }
                headers.restartInterval = Int(bytes[payload.lowerBound]) << 8 | Int(bytes[payload.lowerBound + 1])
            case 0xE0...0xEF, 0xFE:
                continue
            default:
                return nil  // SOF2 and the other processes, DAC, DNL, ...
            }
        }
        guard let scan = Scan(bytes, sos.payloadRange, headers),
            scan.components.reduce(0, { $0 + $1.h * $1.v }) <= 10  // libjpeg's D_MAX_BLOCKS_IN_MCU
        else { return nil }
        (self.scan, restartInterval, self.bytes) = (scan, headers.restartInterval, bytes)
        state = BitState(pos: sos.payloadRange.upperBound)
        geometry = scan.components.map { c in
            pa_jpeg_plane(
                width: UInt32(c.width), height: UInt32(c.height), padded_width: UInt32(scan.mcusAcross * c.h),
                rows_per_group: UInt32(c.v), h_samp_factor: Int32(c.h), v_samp_factor: Int32(c.v), own_scale: 0)
        }
    }

    /// One MCU row: each component's `rows_per_group` rows written to `rows` (component after
    /// component, each `padded_width` long). The luma rows it covers, 0 once every MCU row is
    /// read, nil on a bad code, a premature end or a restart marker out of place.
    mutating func readGroup(_ rows: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int? {
        guard progress.mcuRow < scan.mcusDown else { return 0 }
        let ok = withExtendedLifetime(scan) {
            Self.readMCURow(scan, restartInterval, bytes, rows, &state, &progress)
        }
        guard ok else { return nil }
        progress.mcuRow += 1
        return Int(geometry[0].rows_per_group)
    }

    /// After the last group: true when the EOI marker follows the data, with nothing between.
    mutating func finish() -> Bool {
        progress.mcuRow == scan.mcusDown && state.finish(bytes)
    }
}

extension JPEGDCDecoder {
    /// The frame header: the size and each component's id, sampling and quantisation table.
    struct Frame {
        var width: Int
        var height: Int
        var components: [(id: UInt8, h: Int, v: Int, table: Int)]

        init?(_ bytes: UnsafeRawBufferPointer, _ payload: Range<Int>) {
            let p = payload.lowerBound
            guard payload.count >= 6, bytes[p] == 8 else { return nil }
            height = Int(bytes[p + 1]) << 8 | Int(bytes[p + 2])
            width = Int(bytes[p + 3]) << 8 | Int(bytes[p + 4])
            let count = Int(bytes[p + 5])
            guard width > 0, height > 0, (1...4).contains(count), payload.count == 6 + 3 * count else { return nil }
            components = (0..<count).map { i in
                let c = p + 6 + 3 * i
                return (bytes[c], Int(bytes[c + 1] >> 4), Int(bytes[c + 1] & 15), Int(bytes[c + 2]))
            }
            guard components.allSatisfy({ (1...4).contains($0.h) && (1...4).contains($0.v) && $0.table < 4 }) else {
                return nil
            }
        }

        var maxH: Int { components.map(\.h).max() ?? 1 }
        var maxV: Int { components.map(\.v).max() ?? 1 }

        /// libjpeg's size of component `index` in blocks: ceil(image size * sampling / (max
        /// sampling * 8)).
        func blocks(_ index: Int) -> (across: Int, down: Int) {
            let (c, maxH, maxV) = (components[index], maxH, maxV)
            return ((width * c.h + 8 * maxH - 1) / (8 * maxH), (height * c.v + 8 * maxV - 1) / (8 * maxV))
        }

        /// The MCUs of a scan of every component: ceil(image size / (max sampling * 8)).
        var mcus: (across: Int, down: Int) {
            let (maxH, maxV) = (maxH, maxV)
            return ((width + 8 * maxH - 1) / (8 * maxH), (height + 8 * maxV - 1) / (8 * maxV))
        }

        /// Each component's plane at 1/8 as `pa_jpeg_plane_geometry` describes libjpeg's for a
        /// scan of every component: its blocks, the row a group writes (whole MCUs) and the rows
        /// per group.
        var planesAtOneEighth: [pa_jpeg_plane] {
            let across = mcus.across
            return components.indices.map { i in
                let (c, size) = (components[i], blocks(i))
                return pa_jpeg_plane(
                    width: UInt32(size.across), height: UInt32(size.down), padded_width: UInt32(across * c.h),
                    rows_per_group: UInt32(c.v), h_samp_factor: Int32(c.h), v_samp_factor: Int32(c.v), own_scale: 0)
            }
        }
    }

    /// A DHT table as the segment gives it, checked (`HuffmanTable.isValid`); its lookup tables
    /// are built only for the scan that uses it, as libjpeg builds its derived tables, so a file
    /// of many DHT segments costs no more than libjpeg's header read of it.
    struct HuffmanSpec {
        var counts: [Int]
        var symbols: [UInt8]
    }

    /// The tables seen so far, as the segments before the scan define them.
    struct Headers {
        var frame: Frame?
        var dc: [HuffmanSpec?] = [nil, nil, nil, nil]
        var ac: [HuffmanSpec?] = [nil, nil, nil, nil]
        /// The DC entry of each quantisation table, as libjpeg's IDCT multiplies it (a 16-bit short).
        var quantDC: [Int?] = [nil, nil, nil, nil]
        var restartInterval = 0

        /// One DHT segment (one or more tables); false when it is malformed.
        mutating func readHuffman(_ bytes: UnsafeRawBufferPointer, _ payload: Range<Int>) -> Bool {
            var p = payload.lowerBound
            while p < payload.upperBound {
                guard p + 17 <= payload.upperBound else { return false }
                let (kind, slot) = (bytes[p] >> 4, Int(bytes[p] & 15))
                var counts = [Int](repeating: 0, count: 17)
                for l in 1...16 { counts[l] = Int(bytes[p + l]) }
                let total = counts.reduce(0, +)
                guard kind <= 1, slot < 4, total <= 256, p + 17 + total <= payload.upperBound else { return false }
                let symbols = (0..<total).map { bytes[p + 17 + $0] }
                guard HuffmanTable.isValid(counts: counts, symbols: symbols, isDC: kind == 0) else { return false }
                let spec = HuffmanSpec(counts: counts, symbols: symbols)
                if kind == 0 { dc[slot] = spec } else { ac[slot] = spec }
                p += 17 + total
            }
            return true
        }

        /// One DQT segment; only each table's DC entry is kept.
        mutating func readQuantization(_ bytes: UnsafeRawBufferPointer, _ payload: Range<Int>) -> Bool {
            var p = payload.lowerBound
            while p < payload.upperBound {
                let (precision, slot) = (bytes[p] >> 4, Int(bytes[p] & 15))
                let size = precision == 0 ? 64 : 128
                guard precision <= 1, slot < 4, p + 1 + size <= payload.upperBound else { return false }
                let value = precision == 0 ? Int(bytes[p + 1]) : Int(bytes[p + 1]) << 8 | Int(bytes[p + 2])
                quantDC[slot] = Int(Int16(truncatingIfNeeded: value))
                p += 1 + size
            }
            return true
        }
    }

    /// The scan header checked against the frame: every component in one interleaved scan (or a
    /// greyscale frame's one), sequential (Ss 0, Se 63, no successive approximation), each with
    /// its tables defined.
    struct Scan {
        /// What the decode loop reads of a component: plain values, no references.
        struct Component {
            var lookup: ComponentLookup
            var h: Int
            var v: Int
            var width: Int
            var height: Int
        }
        /// The tables `components` point into, kept alive with the scan.
        var tables: [HuffmanTable]
        var components: [Component]
        var mcusAcross: Int
        var mcusDown: Int

        init?(_ bytes: UnsafeRawBufferPointer, _ payload: Range<Int>, _ headers: Headers) {
            guard let frame = headers.frame else { return nil }
            let p = payload.lowerBound, count = payload.isEmpty ? 0 : Int(bytes[p])
            guard count == frame.components.count, payload.count == 4 + 2 * count else { return nil }
            let end = p + 1 + 2 * count
            guard bytes[end] == 0, bytes[end + 1] == 63, bytes[end + 2] == 0 else { return nil }
            var components: [Component] = []
            var built: [Int: HuffmanTable] = [:]  // slot (AC + 4) -> its table, built once
            func table(_ key: Int, _ spec: HuffmanSpec?) -> HuffmanTable? {
                if let table = built[key] { return table }
                guard let spec, let table = HuffmanTable(counts: spec.counts, symbols: spec.symbols, isDC: key < 4)
                else { return nil }
                built[key] = table
                return table
            }
            for (i, c) in frame.components.enumerated() {
                let selector = p + 1 + 2 * i
                let (dcSlot, acSlot) = (Int(bytes[selector + 1] >> 4), Int(bytes[selector + 1] & 15))
                guard bytes[selector] == c.id, dcSlot < 4, acSlot < 4, let dc = table(dcSlot, headers.dc[dcSlot]),
                    let ac = table(acSlot + 4, headers.ac[acSlot]), let quant = headers.quantDC[c.table]
                else { return nil }
                let (width, height) = frame.blocks(i)
                components.append(
                    Component(
                        lookup: ComponentLookup(dc: dc.lookup, ac: ac.lookup, quant: quant), h: c.h, v: c.v, width: width,
                        height: height))
            }
            if count == 1 {
                // A non-interleaved scan: an MCU is one block, and only the component's own blocks.
                (components[0].h, components[0].v) = (1, 1)
                (mcusAcross, mcusDown) = (components[0].width, components[0].height)
            } else {
                (mcusAcross, mcusDown) = frame.mcus
            }
            self.components = components
            tables = Array(built.values)
        }
    }
}
