extension JPEGDCDecoder {
    /// A canonical Huffman table (ITU T.81 Annex C). It owns its lookup tables; the decode
    /// loop reads them through `lookup`, a plain struct of pointers, so it does no reference
    /// counting per symbol. The table must outlive every use of `lookup`.
    final class HuffmanTable {
        let lookup: HuffmanLookup
        private let storage: UnsafeMutableRawPointer

        /// Nil for a table libjpeg refuses: codes that overflow their length (no code may be all
        /// ones), or a DC table with a symbol over 15. The `skip` table, 4,096 windows walked
        /// code by code, is built for AC tables unless `skips` is false (it stays all zeros).
        init?(counts: [Int], symbols: [UInt8], isDC: Bool, skips: Bool = true) {
            guard Self.isValid(counts: counts, symbols: symbols, isDC: isDC) else { return nil }
            let entries = 1 << HuffmanLookup.bits
            storage = .allocate(byteCount: 6 * entries + 2 * 17 * 8 + 256, alignment: 8)
            let skip = storage.bindMemory(to: UInt32.self, capacity: entries)
            let fast = (storage + 4 * entries).bindMemory(to: UInt16.self, capacity: entries)
            let maxCode = (storage + 6 * entries).bindMemory(to: Int.self, capacity: 17)
            let valueOffset = (storage + 6 * entries + 17 * 8).bindMemory(to: Int.self, capacity: 17)
            let values = (storage + 6 * entries + 34 * 8).bindMemory(to: UInt8.self, capacity: 256)
            fast.initialize(repeating: 0, count: entries)
            maxCode.initialize(repeating: -1, count: 17)
            valueOffset.initialize(repeating: 0, count: 17)
            values.initialize(repeating: 0, count: 256)
            lookup = HuffmanLookup(fast: fast, skip: skip, maxCode: maxCode, valueOffset: valueOffset, symbols: values)
            var code = 0, index = 0
            for length in 1...16 {
                valueOffset[length] = index - code
                for _ in 0..<counts[length] {
                    values[index] = symbols[index]
                    if length <= HuffmanLookup.bits {
                        let shift = HuffmanLookup.bits - length
                        for fill in 0..<(1 << shift) { fast[code << shift | fill] = UInt16(length << 8) | UInt16(symbols[index]) }
                    }
                    code += 1
                    index += 1
                }
                if counts[length] > 0 { maxCode[length] = code - 1 }
                code <<= 1
            }
            if skips && !isDC {
                for window in 0..<entries { skip[window] = Self.skipEntry(window, fast) }
            } else {
                skip.initialize(repeating: 0, count: entries)
            }
        }

        deinit { storage.deallocate() }

        /// Whether libjpeg takes the table (`jpeg_make_d_derived_tbl`): 16 counts (`counts[0]` is
        /// unused) for as many symbols, at most 256, every code fitting its length with one to
        /// spare (no code is all ones), and DC symbols no larger than 15. Checked before any
        /// code indexes a lookup table, which a crafted table would otherwise overrun.
        static func isValid(counts: [Int], symbols: [UInt8], isDC: Bool) -> Bool {
            guard counts.count == 17, counts.allSatisfy({ $0 >= 0 }), counts.reduce(0, +) == symbols.count,
                symbols.count <= 256, !isDC || symbols.allSatisfy({ $0 <= 15 })
            else { return false }
            var code = 0
            for length in 1...16 {
                code += counts[length]
                guard code < 1 << length else { return false }
                code <<= 1
            }
            return true
        }

        /// The `skip` entry of one window of lookup bits: the AC codes (each with its value
        /// bits) that lie wholly in it, one after another up to an end of block.
        private static func skipEntry(_ window: Int, _ fast: UnsafeMutablePointer<UInt16>) -> UInt32 {
            let bits = HuffmanLookup.bits
            var used = 0, advance = 0, before = 0, first: (bits: Int, advance: Int)?
            while used < bits {
                let entry = fast[(window << used) & ((1 << bits) - 1)]
                let (length, symbol) = (Int(entry >> 8), Int(entry & 0xFF))
                let (run, size) = (symbol >> 4, symbol & 15)
                guard entry != 0, length + size <= bits - used else { break }
                let step = size != 0 ? run + 1 : (run == 15 ? 16 : 64)
                (before, advance, used) = (advance, advance + step, used + length + size)
                if first == nil { first = (used, step) }
                if advance >= 64 { break }
            }
            guard let first else { return 0 }
            return HuffmanLookup.pack(all: (used, min(advance, 64)), first: first, before: before)
        }
    }

    /// A `HuffmanTable`'s tables, read without reference counting, by the next `bits` bits of
    /// the stream. `fast` gives a code's length and symbol (`length << 8 | symbol`, 0 for a
    /// longer code). `skip` (AC tables) is what makes skipping cheap: every AC code that lies
    /// wholly in the window with its value bits, one after another up to an end of block, as the
    /// bits they take and how far along the block they move (the run plus one each; 16 for ZRL,
    /// 64 for an end of block), and the same for the first code alone (`pack`). Most photo
    /// windows hold two or three codes, so one lookup skips them all. 0 when not even the first
    /// fits. Longer codes go through libjpeg's `maxcode` and `valoffset`.
    struct HuffmanLookup {
        @inline(__always) static var bits: Int { 12 }
        let fast: UnsafeMutablePointer<UInt16>
        let skip: UnsafeMutablePointer<UInt32>
        let maxCode: UnsafeMutablePointer<Int>
        let valueOffset: UnsafeMutablePointer<Int>
        let symbols: UnsafeMutablePointer<UInt8>

        /// A `skip` entry: the bits and advance of all its codes (6 and 7 bits, from bit 0), the
        /// same of the first one alone (from bit 13), and the advance before the last one (from
        /// bit 26, at most 63: enough to say whether all of them are still in the block). The bits
        /// come lowest so that a shift by the entry itself, masked to 6 bits, consumes them.
        static func pack(all: (bits: Int, advance: Int), first: (bits: Int, advance: Int), before: Int) -> UInt32 {
            UInt32(all.bits | all.advance << 6 | first.bits << 13 | first.advance << 19 | min(before, 63) << 26)
        }

        /// The symbol of the code at the top of `bits` and its length; nil for a bad code (none
        /// of 16 bits or fewer).
        @inline(__always)
        func decode(_ bits: UInt64) -> (symbol: Int, length: Int)? {
            let entry = fast[Int(bits &>> UInt64(64 - Self.bits))]
            if entry != 0 { return (Int(entry & 0xFF), Int(entry >> 8)) }
            for length in (Self.bits + 1)...16 {
                let code = Int(bits &>> UInt64(64 - length))
                if code <= maxCode[length] {
                    let index = valueOffset[length] + code
                    guard index >= 0, index < 256 else { return nil }
                    return (Int(symbols[index]), length)
                }
            }
            return nil
        }
    }
}
