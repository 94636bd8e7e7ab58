/// What bytes no media signature matches look like, so a refusal can say it: an HTML page (an
/// error or login page where the image should be), JSON, XML, an archive, text, or none of these.
///
///     UnknownBytes.Kind(Array("<!DOCTYPE html><html>…".utf8))   // .html
///     UnknownBytes.Kind(Array("{\"error\":\"expired\"}".utf8))   // .json
///     UnknownBytes.start(of: bytes)                              // "<!DOCTYPE html><h" (escaped)
///
/// A look, not a parse: the first kilobyte decides, and a wrong guess only changes a sentence.
package enum UnknownBytes {
    /// How much of the start is looked at.
    package static let scanLimit = 1024

    package enum Kind: String, Sendable, Hashable, CaseIterable {
        case empty, html, xml, json, zip, gzip, text, binary

        /// The kind of `bytes` (their start is enough).
        package init(_ bytes: some Collection<UInt8>) {
            var head = Array(bytes.prefix(UnknownBytes.scanLimit))
            guard !head.isEmpty else {
                self = .empty
                return
            }
            if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
                self = .zip
                return
            }
            if head.starts(with: [0x1F, 0x8B]) {
                self = .gzip
                return
            }
            if head.starts(with: [0xEF, 0xBB, 0xBF]) { head.removeFirst(3) }
            let text = head.drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }.map {
                (0x41...0x5A).contains($0) ? $0 + 0x20 : $0
            }
            if text.starts(with: Array("<?xml".utf8)) {
                self = Self.hasHTMLTag(text) ? .html : .xml
            } else if text.first == UInt8(ascii: "<"), Self.hasHTMLTag(text) {
                self = .html
            } else if text.first == UInt8(ascii: "{") || text.first == UInt8(ascii: "[") {
                self = .json
            } else if Self.isText(head) {
                self = .text
            } else {
                self = .binary
            }
        }

        /// The kind as a noun phrase for a sentence: "an HTML page", "JSON", "text".
        package var phrase: String {
            switch self {
            case .empty: "empty (no bytes at all)"
            case .html: "an HTML page"
            case .xml: "an XML document"
            case .json: "JSON"
            case .zip: "a ZIP archive"
            case .gzip: "gzip-compressed data"
            case .text: "text"
            case .binary: "data of no format iOS knows"
            }
        }

        private static let htmlTags = [
            "<!doctype html", "<html", "<head", "<body", "<title", "<meta", "<script", "<div",
        ]

        private static func hasHTMLTag(_ lowered: [UInt8]) -> Bool {
            htmlTags.contains { lowered.firstRange(of: Array($0.utf8)) != nil }
        }

        /// Valid UTF-8 with no control character but tab, line feed, form feed and carriage
        /// return. A character cut by the scan limit (up to 3 bytes at the end) still counts.
        private static func isText(_ bytes: [UInt8]) -> Bool {
            let cuts = bytes.count >= UnknownBytes.scanLimit ? 0...3 : 0...0
            let isUTF8 = { (part: ArraySlice<UInt8>) in
                // Decoding replaces what is not UTF-8, so only valid bytes come back unchanged.
                String(decoding: part, as: UTF8.self).utf8.elementsEqual(part)
            }
            guard cuts.contains(where: { isUTF8(bytes.dropLast($0)) }) else { return false }
            return !bytes.contains { ($0 < 0x20 && ![0x09, 0x0A, 0x0C, 0x0D].contains($0)) || $0 == 0x7F }
        }
    }

    /// The first `count` bytes as text a person can read in a message (`DisplayText`).
    package static func start(of bytes: some Collection<UInt8>, count: Int = 16) -> String {
        DisplayText.escaped(bytes: bytes.prefix(count))
    }
}
