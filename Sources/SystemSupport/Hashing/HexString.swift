extension Sequence where Element == UInt8 {
    /// Lower-case hexadecimal, two digits per byte.
    ///
    ///     [0xDE, 0xAD].hexString   // "dead"
    package var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
