import Foundation
import PushAttach
import SystemSupport

/// Reads `manifest.json` one entry at a time: the report's memory does not grow with the run.
///
///     let header = try ManifestStream.read(fd, path: path) { entry in count(entry) }
///     header.created   // "2024-05-01T12:00:00Z"
///
/// A small structural scanner finds the members of the top-level object and the elements of
/// `entries`, each handed whole to `JSONDecoder`: it tracks only brackets and strings, and the
/// decoder checks everything else. Members may come in any order; unknown ones are skipped.
struct ManifestStream {
    /// The top-level members other than `entries`.
    struct Header: Sendable, Hashable {
        var schemaVersion: Int?
        var created: String?
    }

    /// An entry larger than this is refused rather than held (a real one is a few KB).
    static let entryLimit = 16 << 20

    private var source: ByteSource
    private let decoder = JSONDecoder()

    private init(_ fd: Int32, path: String) { source = ByteSource(fd: fd, path: path) }

    /// Calls `body` with each entry in file order; returns the other members. Throws
    /// `unreadableManifest` naming the byte where the text stops being a manifest.
    static func read(
        _ fd: Int32, path: String, body: (ManifestEntry) throws(ReportError) -> Void
    ) throws(ReportError) -> Header {
        var stream = ManifestStream(fd, path: path)
        return try stream.document(body)
    }

    private mutating func document(_ body: (ManifestEntry) throws(ReportError) -> Void) throws(ReportError)
        -> Header
    {
        var header = Header()
        var sawEntries = false
        try expect(UInt8(ascii: "{"), "the manifest is not a JSON object")
        if try peekSkippingSpace() == UInt8(ascii: "}") {
            _ = try source.next()
        } else {
            members: while true {
                let key = try decode(String.self, try source.value(limit: 4096), what: "a member name")
                try expect(UInt8(ascii: ":"), "expected ':' after \"\(key)\"")
                switch key {
                case "entries":
                    try entries(body)
                    sawEntries = true
                case "schema_version", "version":
                    header.schemaVersion = try decode(Int.self, try source.value(limit: 64), what: key)
                case "created":
                    header.created = try decode(String.self, try source.value(limit: 4096), what: key)
                default:
                    _ = try source.value(limit: Self.entryLimit)
                }
                switch try source.nextSkippingSpace() {
                case UInt8(ascii: ","): continue members
                case UInt8(ascii: "}"): break members
                default: throw failure("expected ',' or '}' after \"\(key)\"")
                }
            }
        }
        guard try peekSkippingSpace() == nil else { throw failure("text after the manifest's closing '}'") }
        guard sawEntries else { throw failure("no \"entries\" array") }
        return header
    }

    private mutating func entries(_ body: (ManifestEntry) throws(ReportError) -> Void) throws(ReportError) {
        try expect(UInt8(ascii: "["), "\"entries\" is not an array")
        if try peekSkippingSpace() == UInt8(ascii: "]") {
            _ = try source.next()
            return
        }
        var number = 0
        while true {
            try body(try decode(ManifestEntry.self, try source.value(limit: Self.entryLimit), what: "entry \(number)"))
            number += 1
            switch try source.nextSkippingSpace() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "]"): return
            default: throw failure("expected ',' or ']' after entry \(number - 1)")
            }
        }
    }

    private mutating func expect(_ byte: UInt8, _ reason: String) throws(ReportError) {
        guard try source.nextSkippingSpace() == byte else { throw failure(reason) }
    }

    private mutating func peekSkippingSpace() throws(ReportError) -> UInt8? {
        try source.skipSpace()
        return try source.peek()
    }

    private func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], what: String) throws(ReportError) -> T {
        do { return try decoder.decode(type, from: Data(bytes)) } catch {
            throw failure("\(what) does not decode: \(Self.summary(of: error))")
        }
    }

    private func failure(_ reason: String) -> ReportError {
        .unreadableManifest(path: source.path, offset: source.offset, reason: reason)
    }

    /// A decoding error in one line: what was wrong, and where in the value.
    private static func summary(of error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "no \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            (context.codingPath.map(\.stringValue).joined(separator: ".") + " " + context.debugDescription)
                .trimmingCharacters(in: .whitespaces)
        default: "\(error)"
        }
    }
}

/// The bytes of a file, read in 64 KB pieces, one at a time.
private struct ByteSource {
    let fd: Int32
    let path: String
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var position = 0
    private var end = 0
    /// Bytes read before `buffer`'s first.
    private var before = 0
    private var atEnd = false

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    /// Bytes consumed so far.
    var offset: Int { before + position }

    mutating func peek() throws(ReportError) -> UInt8? {
        if position == end { try refill() }
        return position < end ? buffer[position] : nil
    }

    mutating func next() throws(ReportError) -> UInt8? {
        guard let byte = try peek() else { return nil }
        position += 1
        return byte
    }

    mutating func skipSpace() throws(ReportError) {
        while let byte = try peek(), Self.isSpace(byte) { position += 1 }
    }

    mutating func nextSkippingSpace() throws(ReportError) -> UInt8? {
        try skipSpace()
        return try next()
    }

    /// The bytes of the next JSON value (after any space): an object or array up to its matching
    /// bracket, a string up to its closing quote, or a number or literal up to the next
    /// delimiter. Only the nesting is checked here; the decoder checks the rest.
    mutating func value(limit: Int) throws(ReportError) -> [UInt8] {
        try skipSpace()
        var out: [UInt8] = []
        var depth = 0
        var inString = false
        var escaped = false
        while let byte = try next() {
            out.append(byte)
            guard out.count <= limit else {
                throw .unreadableManifest(path: path, offset: offset, reason: "a value longer than \(limit) bytes")
            }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return out }
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                guard depth >= 0 else {
                    throw .unreadableManifest(path: path, offset: offset - 1, reason: "a value was expected")
                }
                if depth == 0 { return out }
            default:
                guard depth == 0 else { continue }
                // A number or a literal: up to the next delimiter.
                while let next = try peek(), !Self.isSpace(next), !Self.isDelimiter(next) {
                    out.append(next)
                    position += 1
                    guard out.count <= limit else {
                        throw .unreadableManifest(
                            path: path, offset: offset, reason: "a value longer than \(limit) bytes")
                    }
                }
                return out
            }
        }
        throw .unreadableManifest(path: path, offset: offset, reason: "the file ends inside a value (cut short?)")
    }

    private mutating func refill() throws(ReportError) {
        guard !atEnd else { return }
        before += end
        position = 0
        do { end = try SystemCall.read(fd, into: &buffer, path: path) } catch { throw .container(error) }
        if end == 0 { atEnd = true }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
    }
}
