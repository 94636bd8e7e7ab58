import MediaTypes

/// A progressive JPEG proved whole without keeping a coefficient: every scan's codes are
/// decoded and skipped, as `JPEGDCDecoder` skips a baseline file's AC codes. What a validation
/// decode at 1/8 needs, and no more.
///
/// libjpeg decodes a progressive file into a buffer of every coefficient of the image (128
/// bytes a block) before its output pass, and its progressive Huffman decoder has no fast path:
/// proving a 960x1280 photo whole at 1/8 took it some 13 ms, two thirds of `prepare`'s time for
/// that file. Here only what decides how the bits are read is kept: for each block, which of its
/// 64 coefficients are nonzero so far (one `UInt64`), because an AC refinement scan reads a
/// correction bit for each of those and counts runs over the others; and for each component,
/// the successive-approximation bit each coefficient was last coded to (libjpeg's `coef_bits`).
///
/// Nothing here warns. Whatever libjpeg would warn about or treat specially makes `readsWhole`
/// false, and the caller decodes with libjpeg, which reports it: a bad code or a correction
/// code libjpeg calls bad, a premature end, junk or a wrong restart marker, a progression libjpeg
/// calls inconsistent or bad, a scan's components out of frame order, a quantisation table not
/// yet defined, a coefficient placed past its band or one that libjpeg's 16-bit store wraps to
/// zero, more than 500 scans, a marker between scans other than DHT, DQT, DRI and COM, and an
/// image some coefficient of which is never refined to its last bit.
///
///     guard JPEGProgressiveReader.readsWhole(bytes) else { return nil }   // libjpeg decodes it
enum JPEGProgressiveReader {
    /// libjpeg-turbo's limit (TurboJPEG's TJFLAG_LIMITSCANS; the shim's PA_JPEG_MAX_SCANS).
    static let maxScans = 500

    /// True when `bytes` is an 8-bit Huffman-coded progressive JPEG whose frame `accepting`
    /// takes and whose every scan reads to its end without a fault, ending in EOI with every
    /// coefficient of every component final.
    static func readsWhole(
        _ bytes: UnsafeRawBufferPointer, accepting: (JPEGDCDecoder.Frame) -> Bool = { _ in true }
    ) -> Bool {
        guard let segments = try? JPEGSegments.read(bytes), let sos = segments.last, sos.marker == 0xDA else {
            return false
        }
        var headers = JPEGDCDecoder.Headers()
        for segment in segments.dropLast() {
            let payload = segment.payloadRange
            switch segment.marker {
            case 0xC2:
                guard headers.frame == nil, let frame = JPEGDCDecoder.Frame(bytes, payload) else { return false }
                headers.frame = frame
            case 0xC4, 0xDB, 0xDD, 0xE0...0xEF, 0xFE:
                guard read(segment.marker, bytes, payload, &headers) else { return false }
            default:
                return false
            }
        }
        guard let frame = headers.frame,
            frame.components.reduce(0, { $0 + $1.h * $1.v }) <= 10,  // libjpeg's D_MAX_BLOCKS_IN_MCU
            accepting(frame)
        else { return false }
        var image = Image(frame)
        var tables = Tables()
        var payload = sos.payloadRange
        for _ in 0..<maxScans {
            guard let scan = Scan(bytes, payload, frame, &image, headers, &tables),
                var state = image.read(scan, headers.restartInterval, bytes)
            else { return false }
            // The markers up to the next scan: tables may change between scans.
            while true {
                guard state.pos + 1 < bytes.count, bytes[state.pos] == 0xFF else { return false }
                var pos = state.pos
                while pos + 1 < bytes.count && bytes[pos + 1] == 0xFF { pos += 1 }  // fill
                guard pos + 1 < bytes.count else { return false }
                let marker = bytes[pos + 1]
                if marker == 0xD9 { return image.isComplete }
                guard pos + 3 < bytes.count else { return false }
                let length = Int(bytes[pos + 2]) << 8 | Int(bytes[pos + 3])
                guard length >= 2, pos + 2 + length <= bytes.count else { return false }
                let range = (pos + 4)..<(pos + 2 + length)
                state.pos = range.upperBound
                if marker == 0xDA {
                    payload = range
                    break
                }
                guard marker == 0xC4 || marker == 0xDB || marker == 0xDD || marker == 0xFE,
                    read(marker, bytes, range, &headers)
                else { return false }
                if marker == 0xC4 { tables = Tables() }
            }
        }
        return false  // more scans than libjpeg-turbo takes
    }

    /// A table or restart segment into `headers`; application and comment segments are skipped.
    private static func read(
        _ marker: UInt8, _ bytes: UnsafeRawBufferPointer, _ payload: Range<Int>, _ headers: inout JPEGDCDecoder.Headers
    ) -> Bool {
        switch marker {
        case 0xC4: return headers.readHuffman(bytes, payload)
        case 0xDB: return headers.readQuantization(bytes, payload)
        case 0xDD:
            guard payload.count == 2 else { return false }
            headers.restartInterval = Int(bytes[payload.lowerBound]) << 8 | Int(bytes[payload.lowerBound + 1])
            return true
        default: return true
        }
    }

    /// The Huffman tables built so far, by slot (AC slots + 4), as libjpeg builds its derived
    /// tables when a scan needs them; dropped when a DHT segment may have redefined them.
    struct Tables {
        var built: [Int: JPEGDCDecoder.HuffmanTable] = [:]

        mutating func table(_ key: Int, _ headers: JPEGDCDecoder.Headers) -> JPEGDCDecoder.HuffmanTable? {
            if let table = built[key] { return table }
            guard let spec = key < 4 ? headers.dc[key] : headers.ac[key - 4],
                let table = JPEGDCDecoder.HuffmanTable(
                    counts: spec.counts, symbols: spec.symbols, isDC: key < 4, skips: false)
            else { return nil }
            built[key] = table
            return table
        }
    }

    /// One component of the frame: its size in blocks (libjpeg's `width_in_blocks`), sampling,
    /// the bit each coefficient was last coded to (-1: never), and each block's nonzero
    /// coefficients so far (bit k for zigzag index k).
    struct Component {
        var id: UInt8
        var h: Int
        var v: Int
        var widthInBlocks: Int
        var heightInBlocks: Int
        var coefficientBits = [Int](repeating: -1, count: 64)
        var nonzero: [UInt64]
    }

    /// One scan header, checked as libjpeg's `get_sos` and `start_pass_phuff_decoder` check it,
    /// with its tables.
    struct Scan {
        var components: [Int]  // indices into the frame's components
        var lookups: [JPEGDCDecoder.HuffmanLookup]  // the DC (first DC scans) or AC table of each
        var tables: [JPEGDCDecoder.HuffmanTable]  // kept alive with the scan
        var start: Int
        var end: Int
        var high: Int
        var low: Int
        /// Where its entropy-coded data starts: the header's end.
        var dataStart: Int

        init?(
            _ bytes: UnsafeRawBufferPointer, _ payload: Range<Int>, _ frame: JPEGDCDecoder.Frame, _ image: inout Image,
            _ headers: JPEGDCDecoder.Headers, _ tables: inout Tables
        ) {
            let p = payload.lowerBound, count = payload.isEmpty ? 0 : Int(bytes[p])
            guard (1...4).contains(count), payload.count == 4 + 2 * count else { return nil }
            let end = p + 1 + 2 * count
            dataStart = payload.upperBound
            (start, self.end) = (Int(bytes[end]), Int(bytes[end + 1]))
            (high, low) = (Int(bytes[end + 2] >> 4), Int(bytes[end + 2] & 15))
            let isDC = start == 0
            // What libjpeg refuses (JERR_BAD_PROGRESSION): the decoder gives up too.
            guard isDC ? self.end == 0 : (start <= self.end && self.end <= 63 && count == 1),
                high == 0 || low == high - 1, low <= 13
            else { return nil }
            components = []
            lookups = []
            self.tables = []
            var blocks = 0
            for i in 0..<count {
                let selector = p + 1 + 2 * i
                // In frame order (libjpeg's get_sos refuses a component listed before one that
                // precedes it in the frame), each with its quantisation table defined (libjpeg's
                // latch_quant_tables refuses a missing one).
                guard let index = frame.components.firstIndex(where: { $0.id == bytes[selector] }),
                    index > components.last ?? -1, headers.quantDC[frame.components[index].table] != nil
                else { return nil }
                let (dcSlot, acSlot) = (Int(bytes[selector + 1] >> 4), Int(bytes[selector + 1] & 15))
                guard dcSlot < 4, acSlot < 4 else { return nil }
                if !isDC || high == 0 {
                    // DC refinement needs no table.
                    guard let table = tables.table(isDC ? dcSlot : acSlot + 4, headers) else { return nil }
                    lookups.append(table.lookup)
                    self.tables.append(table)
                }
                components.append(index)
                blocks += count == 1 ? 1 : frame.components[index].h * frame.components[index].v
            }
            guard blocks <= 10, image.progress(self) else { return nil }
        }

        var isDC: Bool { start == 0 }
    }

    /// The frame's components and what the scans so far have coded.
    struct Image {
        var components: [Component]
        /// The MCUs of an interleaved (DC) scan.
        let mcus: (across: Int, down: Int)

        init(_ frame: JPEGDCDecoder.Frame) {
            mcus = frame.mcus
            components = frame.components.indices.map { i in
                let c = frame.components[i], (across, down) = frame.blocks(i)
                return Component(
                    id: c.id, h: c.h, v: c.v, widthInBlocks: across, heightInBlocks: down,
                    nonzero: [UInt64](repeating: 0, count: across * down))
            }
        }

        /// libjpeg's progression check for `scan`, which updates `coef_bits`: false where it would
        /// warn "Inconsistent progression sequence" (an AC scan before the DC one, or a
        /// refinement that does not continue from the last bit coded).
        mutating func progress(_ scan: Scan) -> Bool {
            for index in scan.components {
                if !scan.isDC && components[index].coefficientBits[0] < 0 { return false }
                for k in scan.start...scan.end {
                    let last = components[index].coefficientBits[k]
                    guard scan.high == (last < 0 ? 0 : last), last < 0 || scan.high > 0 else { return false }
                    components[index].coefficientBits[k] = scan.low
                }
            }
            return true
        }

        /// Every coefficient of every component coded to its last bit.
        var isComplete: Bool { components.allSatisfy { $0.coefficientBits.allSatisfy { $0 == 0 } } }

        /// The entropy-coded data of `scan`, which starts at its header's end. The bit state at
        /// the marker after it (`pos` at its first 0xFF), or nil on any fault.
        mutating func read(_ scan: Scan, _ restartInterval: Int, _ bytes: UnsafeRawBufferPointer)
            -> JPEGDCDecoder.BitState?
        {
            var s = JPEGDCDecoder.BitState(pos: scan.dataStart)
            let ok = withExtendedLifetime(scan.tables) {
                scan.isDC ? readDC(scan, restartInterval, bytes, &s) : readAC(scan, restartInterval, bytes, &s)
            }
            guard ok, s.endOfScan(bytes) else { return nil }
            return s
        }

        /// A DC scan, interleaved (whole MCUs, the blocks past the image's edge included) or of
        /// one component (its own blocks only): each block's difference skipped, or one
        /// refinement bit.
        private func readDC(
            _ scan: Scan, _ restartInterval: Int, _ bytes: UnsafeRawBufferPointer, _ s: inout JPEGDCDecoder.BitState
        ) -> Bool {
            let single = scan.components.count == 1
            let first = components[scan.components[0]]
            let (across, down) = single ? (first.widthInBlocks, first.heightInBlocks) : mcus
            let blocks = scan.components.map { single ? 1 : components[$0].h * components[$0].v }
            var predictions = [Int](repeating: 0, count: scan.components.count)
            var sinceRestart = 0, nextRestart = 0
            for _ in 0..<(across * down) {
                if restartInterval > 0 && sinceRestart == restartInterval {
                    guard s.restart(expecting: nextRestart, bytes) else { return false }
                    (nextRestart, sinceRestart) = ((nextRestart + 1) & 7, 0)
                    for i in predictions.indices { predictions[i] = 0 }
                }
                for i in 0..<blocks.count {
                    for _ in 0..<blocks[i] {
                        if s.count < 32 { s.refill(bytes) }
                        if scan.high > 0 {
                            s.consume(1)
                            continue
                        }
                        guard let (size, length) = scan.lookups[i].decode(s.bits) else { return false }
                        s.consume(length)
                        predictions[i] &+= s.receiveExtend(size)
                        // libjpeg stops on a DC value past an int's range (JERR_BAD_DCT_COEF).
                        guard abs(predictions[i]) < 1 << 30 else { return false }
                    }
                }
                sinceRestart += 1
            }
            return true
        }

        /// An AC scan: one component's own blocks, each its band's codes skipped (first scans) or
        /// its correction bits read (refinements), with end-of-band runs across blocks.
        private mutating func readAC(
            _ scan: Scan, _ restartInterval: Int, _ bytes: UnsafeRawBufferPointer, _ s: inout JPEGDCDecoder.BitState
        ) -> Bool {
            let index = scan.components[0]
            let count = components[index].widthInBlocks * components[index].heightInBlocks
            let table = scan.lookups[0]
            return components[index].nonzero.withUnsafeMutableBufferPointer { nonzero in
                var endRun = 0, sinceRestart = 0, nextRestart = 0
                for block in 0..<count {
                    if restartInterval > 0 && sinceRestart == restartInterval {
                        guard s.restart(expecting: nextRestart, bytes) else { return false }
                        (nextRestart, sinceRestart, endRun) = ((nextRestart + 1) & 7, 0, 0)
                    }
                    sinceRestart += 1
                    let ok =
                        scan.high == 0
                        ? Self.first(scan, table, &nonzero[block], &endRun, bytes, &s)
                        : Self.refine(scan, table, &nonzero[block], &endRun, bytes, &s)
                    guard ok else { return false }
                }
                return true
            }
        }

        /// libjpeg's `decode_mcu_AC_first` for one block, nothing stored but which coefficients
        /// are nonzero.
        @inline(__always)
        private static func first(
            _ scan: Scan, _ table: JPEGDCDecoder.HuffmanLookup, _ nonzero: inout UInt64, _ endRun: inout Int,
            _ bytes: UnsafeRawBufferPointer, _ s: inout JPEGDCDecoder.BitState
        ) -> Bool {
            if endRun > 0 {
                endRun -= 1
                return true
            }
            var k = scan.start
            while k <= scan.end {
                guard let (run, size) = code(table, bytes, &s) else { return false }
                if size != 0 {
                    k += run
                    guard k <= scan.end else { return false }  // libjpeg would store it past the band
                    // libjpeg stores the value shifted by Al as a 16-bit JCOEF: one that wraps to
                    // 0 is zero to its refinements, which would then read other bits.
                    let value = s.receiveExtend(size)
                    guard Int16(truncatingIfNeeded: value << scan.low) != 0 else { return false }
                    nonzero |= 1 << UInt64(k)
                } else if run == 15 {
                    k += 15
                } else {
                    endRun = endOfBandRun(run, &s) - 1  // this block is the run's first
                    break
                }
                k += 1
            }
            return true
        }

        /// libjpeg's `decode_mcu_AC_refine` for one block: a correction bit for each coefficient
        /// already nonzero that a run passes or the band's end run covers, a new coefficient
        /// (magnitude 1) where a run stops. libjpeg walks the band a coefficient at a time; here
        /// the history's bits say at once where a run of zeros stops (the run+1-th zero bit) and
        /// how many correction bits it passes (the nonzero bits before it), and those are skipped
        /// together.
        @inline(__always)
        private static func refine(
            _ scan: Scan, _ table: JPEGDCDecoder.HuffmanLookup, _ nonzero: inout UInt64, _ endRun: inout Int,
            _ bytes: UnsafeRawBufferPointer, _ s: inout JPEGDCDecoder.BitState
        ) -> Bool {
            let end = scan.end
            var k = scan.start
            var nz = nonzero
            defer { nonzero = nz }
            if endRun == 0 {
                while k <= end {
                    guard let (run, size) = code(table, bytes, &s) else { return false }
                    if size != 0 {
                        guard size == 1 else { return false }  // libjpeg warns: a bad Huffman code
                        s.consume(1)  // the new coefficient's sign
                    } else if run != 15 {
                        endRun = endOfBandRun(run, &s)
                        break
                    }
                    // The run+1-th coefficient from k still zero (ZRL: the 16th), else past the band.
                    var zeros = ~nz & band(k, end)
                    for _ in 0..<run { zeros &= zeros &- 1 }
                    let stop = zeros == 0 ? end + 1 : zeros.trailingZeroBitCount
                    if stop > k { skip((nz & band(k, stop - 1)).nonzeroBitCount, bytes, &s) }
                    if size != 0 {
                        guard stop <= end else { return false }  // libjpeg would store it past the band
                        nz |= 1 << UInt64(stop)
                    }
                    k = stop + 1
                }
            }
            if endRun > 0 {
                if k <= end { skip((nz & band(k, end)).nonzeroBitCount, bytes, &s) }
                endRun -= 1
            }
            return true
        }

        /// The next AC code's run and size (the value bits that follow are the caller's); nil for
        /// a bad code.
        @inline(__always)
        private static func code(
            _ table: JPEGDCDecoder.HuffmanLookup, _ bytes: UnsafeRawBufferPointer, _ s: inout JPEGDCDecoder.BitState
        ) -> (run: Int, size: Int)? {
            if s.count < 32 { s.refill(bytes) }
            guard let (symbol, length) = table.decode(s.bits) else { return nil }
            s.consume(length)
            return (symbol >> 4, symbol & 15)
        }

        /// The blocks an end-of-band code (EOBn, `run` = n) ends, the one it is in included:
        /// 2^n plus the n bits that follow it.
        @inline(__always)
        private static func endOfBandRun(_ run: Int, _ s: inout JPEGDCDecoder.BitState) -> Int {
            run > 0 ? (1 << run) + s.receiveBits(run) : 1
        }

        /// Bits `from` through `to` (0...63, `from` <= `to`) set.
        @inline(__always)
        private static func band(_ from: Int, _ to: Int) -> UInt64 {
            let upTo: UInt64 = to == 63 ? ~0 : (1 << UInt64(to + 1)) &- 1
            return upTo & ~((1 << UInt64(from)) &- 1)
        }

        /// Consumes `n` (up to 64) bits: correction bits, whose values a validation does not need.
        @inline(__always)
        private static func skip(_ n: Int, _ bytes: UnsafeRawBufferPointer, _ s: inout JPEGDCDecoder.BitState) {
            var left = n
            while left > 0 {
                if s.count < 32 { s.refill(bytes) }
                let take = min(left, 32)
                s.consume(take)
                left -= take
            }
        }
    }
}
