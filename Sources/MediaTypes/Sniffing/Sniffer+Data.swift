import Foundation

extension Sniffer {
    /// How many leading bytes of `data` `sniff` needs to say what it says of the whole file:
    /// the header window of audio and video (`headerWindow`), a JPEG's segments up to its start
    /// of frame (`jpegHeaderWindow`, walked in place), else all of it. A mapped or spooled file
    /// is then judged without copying more of it than its format's facts need.
    ///
    ///     let data = try Data(contentsOf: movie, options: .alwaysMapped)
    ///     let sniffed = try Sniffer.sniff([UInt8](data.prefix(Sniffer.window(of: data))))
    package static func window(of data: Data) -> Int {
        let prefix = [UInt8](data.prefix(16_384))
        let window =
            headerWindow(prefix: prefix)
            ?? (identify(prefix: prefix) == .jpeg ? data.withUnsafeBytes { jpegHeaderWindow($0) } : nil)
        return min(window ?? data.count, data.count)
    }
}
