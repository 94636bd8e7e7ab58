/// The keys of JSON objects in the order the text writes them (Foundation's parsers give a
/// dictionary, which has none).
///
///     JSONKeys.topLevel(of: #"{"b":1,"a":{"c":2}}"#)   // ["b", "a"]
enum JSONKeys {
    /// The keys of the outermost object.
    static func topLevel(of text: String) -> [String] { objects(in: text, depth: 1).first ?? [] }

    /// The keys of each object in the outermost object's `entries` array (`manifest.json`).
    static func entries(of text: String) -> [[String]] { objects(in: text, depth: 3) }

    /// One list of keys per object opened at `depth` (1: the outermost value), in text order.
    static func objects(in text: String, depth: Int) -> [[String]] {
        let bytes = Array(text.utf8)
        var result: [[String]] = []
        var open: [UInt8] = []  // `{` or `[`, innermost last
        var lastString: [UInt8]?
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "\""):
                var j = i + 1
                var string: [UInt8] = []
                while j < bytes.count, bytes[j] != UInt8(ascii: "\"") {
                    if bytes[j] == UInt8(ascii: "\\") { j += 1 }
                    if j < bytes.count { string.append(bytes[j]) }
                    j += 1
                }
                lastString = string
                i = j + 1
                continue
            case UInt8(ascii: "{"):
                open.append(byte)
                if open.count == depth { result.append([]) }
            case UInt8(ascii: "["):
                open.append(byte)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = open.popLast()
            case UInt8(ascii: ":"):
                if open.count == depth, open.last == UInt8(ascii: "{"), let key = lastString, !result.isEmpty {
                    result[result.count - 1].append(String(decoding: key, as: UTF8.self))
                }
            default:
                break
            }
            if byte != 0x20, byte != 0x0A, byte != 0x0D, byte != 0x09 { lastString = nil }
            i += 1
        }
        return result
    }
}
