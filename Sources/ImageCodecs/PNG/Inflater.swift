/// The deflate decoder behind `Zlib.inflate` (RFC 1951), after Mark Adler's puff: canonical
/// Huffman decoding bit by bit, every read bounds-checked, output capped at `limit`.
///
///     var inflater = Inflater(bytes: stream, position: 2, limit: 1 << 20)
///     try inflater.run()
struct Inflater {
    struct Huffman {
        var count = [Int](repeating: 0, count: 16)
        var symbol: [Int]

        init(lengths: ArraySlice<Int>) throws(Zlib.Failure) {
            symbol = [Int](repeating: 0, count: lengths.count)
            for length in lengths { count[length] += 1 }
            var left = 1
            for length in 1..<16 {
                left <<= 1
                left -= count[length]
                if left < 0 { throw Zlib.Failure(message: "over-subscribed Huffman code") }
            }
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + count[length] }
            for (sym, length) in lengths.enumerated() where length != 0 {
                symbol[offsets[length]] = sym
                offsets[length] += 1
            }
        }
    }

    static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
        6145, 8193, 12289, 16385, 24577,
    ]
    static let distanceExtra = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]

    let bytes: [UInt8]
    var position: Int
    let limit: Int
    var bitBuffer = 0
    var bitCount = 0
    var output: [UInt8] = []

    init(bytes: [UInt8], position: Int, limit: Int) {
        self.bytes = bytes
        self.position = position
        self.limit = limit
    }

    mutating func bits(_ n: Int) throws(Zlib.Failure) -> Int {
        while bitCount < n {
            guard position < bytes.count else { throw Zlib.Failure(message: "deflate data truncated") }
            bitBuffer |= Int(bytes[position]) << bitCount
            position += 1
            bitCount += 8
        }
        let value = bitBuffer & ((1 << n) - 1)
        bitBuffer >>= n
        bitCount -= n
        return value
    }

    mutating func decode(_ h: Huffman) throws(Zlib.Failure) -> Int {
        var code = 0, first = 0, index = 0
        for length in 1..<16 {
            code |= try bits(1)
            let count = h.count[length]
            if code - count < first { return h.symbol[index + (code - first)] }
            index += count
            first += count
            first <<= 1
            code <<= 1
        }
        throw Zlib.Failure(message: "invalid Huffman code")
    }

    mutating func run() throws(Zlib.Failure) {
        var last = 0
        repeat {
            last = try bits(1)
            switch try bits(2) {
            case 0: try storedBlock()
            case 1: try fixedBlock()
            case 2: try dynamicBlock()
            default: throw Zlib.Failure(message: "invalid deflate block type")
            }
        } while last == 0
        // Any bits left in the buffer belong to the final partial byte; the checksum follows.
        bitBuffer = 0
        bitCount = 0
    }

    mutating func storedBlock() throws(Zlib.Failure) {
        bitBuffer = 0
        bitCount = 0
        guard position + 4 <= bytes.count else { throw Zlib.Failure(message: "stored block truncated") }
        let length = Int(bytes[position]) | Int(bytes[position + 1]) << 8
        let complement = Int(bytes[position + 2]) | Int(bytes[position + 3]) << 8
        guard length == ~complement & 0xFFFF else { throw Zlib.Failure(message: "stored block length check failed") }
        position += 4
        guard position + length <= bytes.count else { throw Zlib.Failure(message: "stored block truncated") }
        guard output.count + length <= limit else { throw Zlib.Failure(message: "inflated data over \(limit) bytes") }
        output += bytes[position..<(position + length)]
        position += length
    }

    mutating func fixedBlock() throws(Zlib.Failure) {
        var lengths = [Int](repeating: 8, count: 288)
        for i in 144..<256 { lengths[i] = 9 }
        for i in 256..<280 { lengths[i] = 7 }
        let lengthCode = try Huffman(lengths: lengths[...])
        let distanceCode = try Huffman(lengths: [Int](repeating: 5, count: 30)[...])
        try codes(lengthCode, distanceCode)
    }

    mutating func dynamicBlock() throws(Zlib.Failure) {
        let nlen = try bits(5) + 257, ndist = try bits(5) + 1, ncode = try bits(4) + 4
        guard nlen <= 286, ndist <= 30 else { throw Zlib.Failure(message: "bad dynamic block header") }
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        var lengths = [Int](repeating: 0, count: 320)
        for i in 0..<ncode { lengths[order[i]] = try bits(3) }
        let codeLengthCode = try Huffman(lengths: lengths[0..<19])
        var index = 0
        while index < nlen + ndist {
            var symbol = try decode(codeLengthCode)
            if symbol < 16 {
                lengths[index] = symbol
                index += 1
                continue
            }
            var repeated = 0
            if symbol == 16 {
                guard index > 0 else { throw Zlib.Failure(message: "repeat with no previous length") }
                repeated = lengths[index - 1]
                symbol = 3 + (try bits(2))
            } else if symbol == 17 {
                symbol = 3 + (try bits(3))
            } else {
                symbol = 11 + (try bits(7))
            }
            guard index + symbol <= nlen + ndist else { throw Zlib.Failure(message: "too many code lengths") }
            for _ in 0..<symbol {
                lengths[index] = repeated
                index += 1
            }
        }
        guard lengths[256] != 0 else { throw Zlib.Failure(message: "no end-of-block code") }
        let lengthCode = try Huffman(lengths: lengths[0..<nlen])
        let distanceCode = try Huffman(lengths: lengths[nlen..<(nlen + ndist)])
        try codes(lengthCode, distanceCode)
    }

    mutating func codes(_ lengthCode: Huffman, _ distanceCode: Huffman) throws(Zlib.Failure) {
        while true {
            var symbol = try decode(lengthCode)
            if symbol < 256 {
                guard output.count < limit else { throw Zlib.Failure(message: "inflated data over \(limit) bytes") }
                output.append(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            symbol -= 257
            guard symbol < 29 else { throw Zlib.Failure(message: "invalid length symbol") }
            let length = Self.lengthBase[symbol] + (try bits(Self.lengthExtra[symbol]))
            let distanceSymbol = try decode(distanceCode)
            guard distanceSymbol < 30 else { throw Zlib.Failure(message: "invalid distance symbol") }
            let distance = Self.distanceBase[distanceSymbol] + (try bits(Self.distanceExtra[distanceSymbol]))
            guard distance <= output.count else { throw Zlib.Failure(message: "distance too far back") }
            guard output.count + length <= limit else {
                throw Zlib.Failure(message: "inflated data over \(limit) bytes")
            }
            for _ in 0..<length { output.append(output[output.count - distance]) }
        }
    }
}
