import Foundation

/// The file name of a prepared attachment: `<UUID>-<name>.<ext>`.
///
///     let name = AttachmentName(uuid: UUID(), suggestedFilename: "My Cat.webp", fileExtension: "jpg")
///     name.fileName     // "3F2C…-My-Cat.jpg"
///     name.identifier   // "3F2C…" (the UNNotificationAttachment identifier)
///
/// `prepare` names by the URL, with a random or a stable (name-based) UUID
/// (`AttachmentName(url:fileExtension:naming:)`, in PushAttach).
///
/// `<name>` comes from the Content-Disposition filename if given, else the URL's last path
/// component (percent-decoded), else `attachment`, cleaned by `NameSanitizer`. `<ext>` is the
/// real, sniffed type's extension (`MediaFormat.fileExtension`), never the URL's. The whole
/// name is capped to NAME_MAX (255) bytes of UTF-8, cutting `<name>` on a character boundary.
package struct AttachmentName: Sendable, Hashable, CustomStringConvertible {
    /// Linux, macOS and iOS limit one path component to 255 bytes.
    package static let nameMax = 255

    /// The UUID, upper-case: also the attachment identifier.
    package let identifier: String
    /// The sanitised `<name>` part.
    package let baseName: String
    package let fileExtension: String

    package var fileName: String { "\(identifier)-\(baseName).\(fileExtension)" }
    package var description: String { fileName }

    /// The designated initialiser: an explicit UUID and an untrusted suggested name.
    package init(uuid: UUID, suggestedFilename: String?, fileExtension: String) {
        identifier = uuid.uuidString
        let ext = Self.cleanExtension(fileExtension)
        self.fileExtension = ext
        var base = NameSanitizer.baseName(suggestedFilename ?? "")
        let budget = Self.nameMax - identifier.utf8.count - 1 - 1 - ext.utf8.count
        if base.utf8.count > budget {
            // Whole characters off the end until the UTF-8 fits.
            while base.utf8.count > budget { base.removeLast() }
            while let last = base.last, last == "." || last == "-" || last == "_" { base.removeLast() }
            if base.isEmpty { base = NameSanitizer.fallback }
        }
        baseName = base
    }

    /// The URL's last path component, percent-decoded; nil when the path is empty or `/`.
    package static func lastPathComponent(of url: String) -> String? {
        guard let components = URLComponents(string: url) else { return nil }
        let path = components.percentEncodedPath
        guard let last = path.split(separator: "/", omittingEmptySubsequences: true).last else { return nil }
        return String(last).removingPercentEncoding ?? String(last)
    }

    /// Lower-case ASCII letters and digits only, at most 16; `bin` if nothing is left.
    private static func cleanExtension(_ ext: String) -> String {
        let kept = ext.lowercased().unicodeScalars.filter {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
        let text = String(String.UnicodeScalarView(kept.prefix(16)))
        return text.isEmpty ? "bin" : text
    }
}
