/// A GIF LZW decoder for the frames giflib refuses: an LZW minimum code size of 9 to 11.
///
///     var lzw = try GIFLZWDecoder(minimumCodeSize: 9, reader: reader)  // reader just past the size byte
///     var line = [UInt16](repeating: 0, count: frameWidth)
///     for _ in 0..<frameHeight { try lzw.readLine(into: &line) }
///     try lzw.skipToEnd()                                              // past the block terminator
///
/// The format allows minimum code sizes up to 11 (codes stay at most 12 bits); giflib 5.2's
/// `DGifSetupDecompress` refuses anything above 8, where Pillow and libvips decode.
/// Such a file is legal, only unusual (an encoder that always starts at 9 bits), so giflib keeps
/// every other frame and this decoder reads the refused one's sub-blocks straight from the
/// `GIFReader`, after which giflib's record walk goes on from the byte after the terminator.
///
/// Bounds: every read is checked against the end of the file (a cut stream is damage, never a
/// read past the end); a code above the next free table entry is damage; the string table is
/// 4,096 entries and the output stack 4,096 pixels, fixed. Indices can be up to 2,047 (a code
/// size of 11), wider than `GifPixelType`, so lines are `UInt16`. One frame at a time.
///
/// - Complexity: O(pixels + compressed bytes); memory 3 x 8 KB of tables and an 8 KB stack.
struct GIFLZWDecoder {
    enum Failure: Error, Equatable {
        /// The minimum code size is not 2-11.
        case codeSize(Int)
        /// The data ends (file end, or the block terminator / end code) before the frame's pixels.
        case truncated
        /// A code that is neither in the table nor the next one to be added.
        case badCode(Int)
    }

    private static let tableSize = 4096

    private let reader: GIFReader
    private let minimumCodeSize: Int
    private let clear: Int
    private let end: Int

    private var codeSize: Int
    private var next: Int
    private var previous: Int?
    private var prefix = [UInt16](repeating: 0, count: tableSize)
    private var suffix = [UInt16](repeating: 0, count: tableSize)
    /// First pixel of each entry's string.
    private var first = [UInt16](repeating: 0, count: tableSize)
    /// Pixels decoded but not yet handed out, last one on top.
    private var stack = [UInt16](repeating: 0, count: tableSize)
    private var stackCount = 0

    private var bits: UInt32 = 0
    private var bitCount = 0
    /// Bytes left in the current sub-block; `blocksEnded` after the 0-length terminator.
    private var blockRemaining = 0
    private var blocksEnded = false
    private var sawEnd = false

    /// `reader` stands just past the frame's LZW minimum code size byte.
    init(minimumCodeSize: Int, reader: GIFReader) throws(Failure) {
        guard (2...11).contains(minimumCodeSize) else { throw .codeSize(minimumCodeSize) }
        self.reader = reader
        self.minimumCodeSize = minimumCodeSize
        clear = 1 << minimumCodeSize
        end = clear + 1
        codeSize = minimumCodeSize + 1
        next = clear + 2
        for code in 0..<clear {
            suffix[code] = UInt16(code)
            first[code] = UInt16(code)
        }
    }

    /// Fills `line` with the next `line.count` pixel indices.
    mutating func readLine(into line: inout [UInt16]) throws(Failure) {
        var filled = 0
        while filled < line.count {
            if stackCount == 0 { try decodeCode() }
            while stackCount > 0, filled < line.count {
                stackCount -= 1
                line[filled] = stack[stackCount]
                filled += 1
            }
        }
    }

    /// Reads on to the sub-block terminator (any codes left are ignored); the reader then stands
    /// on the next record.
    mutating func skipToEnd() throws(Failure) {
        while !blocksEnded {
            if blockRemaining > 0 {
                guard reader.skip(blockRemaining) else { throw .truncated }
                blockRemaining = 0
            }
            guard !blocksEnded, let size = reader.nextByte() else { throw .truncated }
            if size == 0 { blocksEnded = true } else { blockRemaining = Int(size) }
        }
    }

    /// Decodes one code onto the stack (a clear code decodes the code after it).
    private mutating func decodeCode() throws(Failure) {
        while true {
            guard !sawEnd else { throw .truncated }
            let code = try readCode()
            if code == clear {
                codeSize = minimumCodeSize + 1
                next = clear + 2
                previous = nil
                continue
            }
            if code == end {
                sawEnd = true
                throw .truncated
            }
            guard let previous else {
                guard code < clear else { throw .badCode(code) }
                push(code)
                self.previous = code
                return
            }
            let known = code < next
            guard known || code == next else { throw .badCode(code) }
            // The string for `code`; for the next entry (KwKwK) it is previous + previous's first.
            let head = known ? first[code] : first[previous]
            if !known { stack[stackCount] = head; stackCount += 1 }
            push(known ? code : previous)
            if next < Self.tableSize {
                prefix[next] = UInt16(previous)
                suffix[next] = head
                first[next] = first[previous]
                next += 1
                if next == 1 << codeSize, codeSize < 12 { codeSize += 1 }
            }
            self.previous = code
            return
        }
    }

    /// Pushes the string of table entry `code`, walking its prefix chain from the last pixel to
    /// the first, so the first pixel ends on top of the stack and is handed out first.
    private mutating func push(_ code: Int) {
        var entry = code
        // A chain is at most 4,095 long (every prefix is a smaller code); the bound only guards.
        while entry >= clear, stackCount < Self.tableSize - 1 {
            stack[stackCount] = suffix[entry]
            stackCount += 1
            entry = Int(prefix[entry])
        }
        stack[stackCount] = UInt16(entry)
        stackCount += 1
    }

    private mutating func readCode() throws(Failure) -> Int {
        while bitCount < codeSize {
            if blockRemaining == 0 { try startBlock() }
            guard let byte = reader.nextByte() else { throw .truncated }
            blockRemaining -= 1
            bits |= UInt32(byte) << UInt32(bitCount)
            bitCount += 8
        }
        let code = Int(bits & ((1 << UInt32(codeSize)) - 1))
        bits >>= UInt32(codeSize)
        bitCount -= codeSize
        return code
    }

    /// Reads the next sub-block's length byte; the terminator here means the codes ran out.
    private mutating func startBlock() throws(Failure) {
        guard !blocksEnded, let size = reader.nextByte() else { throw .truncated }
        guard size > 0 else {
            blocksEnded = true
            throw .truncated
        }
        blockRemaining = Int(size)
    }
}

extension GIFLZWDecoder.Failure: CustomStringConvertible {
    var description: String {
        switch self {
        case .codeSize(let size): "LZW minimum code size \(size) is not 2-11"
        case .truncated: "the LZW data ends before the frame's last pixel"
        case .badCode(let code): "LZW code \(code) is not in the table"
        }
    }
}
