extension JPEGDCDecoder {
    /// Where the entropy-coded segment is read: a 64-bit buffer with the next bits at the top,
    /// filled eight bytes at a time while no 0xFF is among them. A marker stops the filling;
    /// zero bits are fed after it, as libjpeg does, and counted (`padding`): using any of them
    /// is a premature end, which libjpeg warns about, so the decode gives up.
    ///
    /// A plain value, copied into a local of the decode loop so that it lives in registers:
    /// nothing takes its address, and the rare byte-by-byte fill takes and returns it by value.
    struct BitState {
        var pos: Int
        var bits: UInt64 = 0
        var count = 0
        var padding = 0
        var atMarker = false

        /// Tops the buffer up to at least 56 bits.
        @inline(__always)
        mutating func refill(_ bytes: UnsafeRawBufferPointer) {
            if !atMarker, pos &+ 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: pos, as: UInt64.self)
                let inverted = ~word  // a 0xFF byte is a zero byte here
                if (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080 == 0 {
                    let take = (63 &- count) &>> 3
                    bits |= (word.byteSwapped &>> UInt64(64 &- 8 &* take)) &<< UInt64(64 &- count &- 8 &* take)
                    count &+= 8 &* take
                    pos &+= take
                    return
                }
            }
            self = Self.filledSlowly(self, bytes)
        }

        /// Byte by byte, through stuffed bytes, stopping at a marker.
        private static func filledSlowly(_ state: BitState, _ bytes: UnsafeRawBufferPointer) -> BitState {
            var s = state
            while s.count <= 56 {
                var byte: UInt64 = 0
                if !s.atMarker && s.pos < bytes.count && bytes[s.pos] != 0xFF {
                    byte = UInt64(bytes[s.pos])
                    s.pos += 1
                } else if !s.atMarker && s.pos + 1 < bytes.count && bytes[s.pos + 1] == 0 {
                    byte = 0xFF  // a stuffed 0xFF
                    s.pos += 2
                } else {
                    s.atMarker = true
                    s.padding += 8
                }
                s.bits |= byte &<< UInt64(56 - s.count)
                s.count += 8
            }
            return s
        }

        @inline(__always)
        mutating func consume(_ n: Int) {
            bits &<<= UInt64(n)
            count &-= n
        }

        /// The next `n` (0...15) bits as a signed coefficient (T.81's EXTEND).
        @inline(__always)
        mutating func receiveExtend(_ n: Int) -> Int {
            guard n > 0 else { return 0 }
            let value = Int(bits &>> UInt64(64 &- n))
            consume(n)
            return value < 1 &<< (n &- 1) ? value &- (1 &<< n) &+ 1 : value
        }

        /// The next `n` (1...16) bits as an unsigned number (a progressive end-of-band run).
        @inline(__always)
        mutating func receiveBits(_ n: Int) -> Int {
            let value = Int(bits &>> UInt64(64 &- n))
            consume(n)
            return value
        }

        /// The buffer's unused bits, which must be less than a byte of real data (libjpeg counts
        /// whole bytes left as discarded and warns), and none of the zero padding used.
        var leftoverIsPadding: Bool { count >= padding && count - padding < 8 }

        /// At a restart interval's end: the expected RSTn marker next, then a fresh buffer.
        mutating func restart(expecting n: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
            guard leftoverIsPadding, skipFill(bytes), pos + 1 < bytes.count, bytes[pos + 1] == 0xD0 + UInt8(n) else {
                return false
            }
            self = BitState(pos: pos + 2)
            return true
        }

        /// At the end of one of a progressive file's scans: only padding left, then a marker
        /// (`pos` at its 0xFF, past any fill).
        mutating func endOfScan(_ bytes: UnsafeRawBufferPointer) -> Bool {
            leftoverIsPadding && skipFill(bytes) && pos + 1 < bytes.count
        }

        /// At the scan's end: the EOI marker next, nothing between.
        mutating func finish(_ bytes: UnsafeRawBufferPointer) -> Bool {
            endOfScan(bytes) && bytes[pos + 1] == 0xD9
        }

        /// Moves `pos` to the last of a run of 0xFF bytes (fill before a marker); false when
        /// `pos` is not at one.
        private mutating func skipFill(_ bytes: UnsafeRawBufferPointer) -> Bool {
            guard pos < bytes.count, bytes[pos] == 0xFF else { return false }
            while pos + 1 < bytes.count && bytes[pos + 1] == 0xFF { pos += 1 }
            return true
        }
    }

    /// A component's tables and DC quantiser as the decode loop reads them.
    struct ComponentLookup {
        var dc: HuffmanLookup
        var ac: HuffmanLookup
        var quant: Int
    }

    /// One MCU row of `scan` into the group `rows`: each block's DC sample kept, its AC
    /// coefficients skipped. False on a bad code, a premature end or a restart out of place.
    static func readMCURow(
        _ scan: Scan, _ restartInterval: Int, _ bytes: UnsafeRawBufferPointer,
        _ rows: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, _ state: inout BitState, _ progress: inout Progress
    ) -> Bool {
        scan.components.withUnsafeBufferPointer { readMCURow($0, scan.mcusAcross, restartInterval, bytes, rows, &state, &progress) }
    }

    private static func readMCURow(
        _ components: UnsafeBufferPointer<Scan.Component>, _ across: Int, _ restartInterval: Int,
        _ bytes: UnsafeRawBufferPointer, _ rows: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
        _ state: inout BitState, _ progress: inout Progress
    ) -> Bool {
        var s = state, p = progress
        defer { (state, progress) = (s, p) }
        for mx in 0..<across {
            if restartInterval > 0 && p.sinceRestart == restartInterval {
                guard s.restart(expecting: p.nextRestart, bytes) else { return false }
                p.nextRestart = (p.nextRestart + 1) & 7
                p.sinceRestart = 0
                p.predictions = (0, 0, 0, 0)
            }
            var row = 0
            for i in 0..<components.count {
                let c = components[i]
                var prediction = i == 0 ? p.predictions.0 : i == 1 ? p.predictions.1 : i == 2 ? p.predictions.2 : p.predictions.3
                for by in 0..<c.v {
                    let out = rows[row &+ by]!
                    for bx in 0..<c.h {
                        guard let dc = block(c.lookup, &prediction, bytes, &s) else { return false }
                        out[mx &* c.h &+ bx] = dc
                    }
                }
                row &+= c.v
                switch i {
                case 0: p.predictions.0 = prediction
                case 1: p.predictions.1 = prediction
                case 2: p.predictions.2 = prediction
                default: p.predictions.3 = prediction
                }
            }
            p.sinceRestart += 1
        }
        return true
    }

    /// One block: its DC sample as libjpeg's `jpeg_idct_1x1` makes it, its AC codes skipped.
    @inline(__always)
    private static func block(
        _ t: ComponentLookup, _ prediction: inout Int, _ bytes: UnsafeRawBufferPointer, _ s: inout BitState
    ) -> UInt8? {
        if s.count < 32 { s.refill(bytes) }
        guard let (symbol, length) = t.dc.decode(s.bits) else { return nil }
        s.consume(length)
        prediction &+= s.receiveExtend(symbol)
        var k = 1
        while k < 64 {
            // A window of codes takes at most `HuffmanLookup.bits`; a longer code and its value 31.
            if s.count < 16 { s.refill(bytes) }
            let skip = t.ac.skip[Int(s.bits &>> UInt64(64 - HuffmanLookup.bits))]
            if skip != 0 {
                // All the window's codes while the last still starts inside the block, else the
                // first (rare: a block whose last coefficient is number 63, with no end code).
                var packed = skip
                if _slowPath(k &+ Int(packed &>> 26) >= 64) { packed &>>= 13 }
                s.bits &<<= UInt64(packed)  // a masking shift: the low 6 bits
                s.count &-= Int(packed & 63)
                k &+= Int((packed &>> 6) & 127)
                continue
            }
            if s.count < 32 { s.refill(bytes) }
            guard let (code, length) = t.ac.decode(s.bits) else { return nil }
            let (run, size) = (code &>> 4, code & 15)
            s.consume(length &+ size)
            if size != 0 { k &+= run &+ 1 } else if run == 15 { k &+= 16 } else { break }
        }
        return sample(dc: prediction, quant: t.quant)
    }

    /// libjpeg's 1x1 IDCT: the coefficient as a 16-bit JCOEF, dequantised, descaled by 3 bits,
    /// centred and range-limited through its post-IDCT table (`dcval & RANGE_MASK`), which
    /// clamps near range and wraps far outside it, as only a crafted file gets.
    @inline(__always)
    static func sample(dc: Int, quant: Int) -> UInt8 {
        let value = (Int(Int16(truncatingIfNeeded: dc)) &* quant &+ 4) &>> 3
        let masked = value & 1023
        switch masked {
        case 0..<128: return UInt8(masked + 128)
        case 128..<512: return 255
        case 512..<896: return 0
        default: return UInt8(masked - 896)
        }
    }
}
