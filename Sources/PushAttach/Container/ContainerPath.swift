import PushPayloads

/// The one check of a path, relative to the container, that comes from outside the run: a
/// manifest entry's `file` or `thumbnail` read back from a journal (`--resume`, the merge) or
/// from `manifest.json` (the report). Such text is data anyone who can write into the container
/// can edit, and it is checked as bytes before it reaches any file-system call.
///
///     ContainerPath.problem("Images/3F2C…-cat.jpg")   // nil: a file the run could have written
///     ContainerPath.problem("..\u{0}/outside.jpg")    // "it holds a NUL byte"
///     ContainerPath.problem("/etc/passwd")            // "it is absolute"
///
/// A path passes only when it is one the run writes: `<folder>/<name>`, exactly two
/// components, `<folder>` one of `Container.Folder` (`Images`, `Audio`, `Video`, `Thumbnails`),
/// `<name>` at most `AttachmentName.nameMax` bytes, not empty, not `.` or `..`, not hidden (a
/// leading `.`: temporaries and the spool are not attachments), and no byte or character that
/// `NameSanitizer` never lets into a name: NUL and other controls (C0, DEL, C1), bidi and
/// invisible format characters.
///
/// - Complexity: O(n) in the path's length, which is bounded before anything else is looked at.
package enum ContainerPath {
    /// The longest path that can pass: the longest folder name, `/`, a name of `nameMax` bytes.
    package static let maxBytes = Container.Folder.allCases.map(\.rawValue.utf8.count).max()! + 1 + AttachmentName.nameMax

    /// Why `relative` is not a path to a file of the container's folders, or nil when it is.
    package static func problem(_ relative: String) -> String? {
        let bytes = relative.utf8
        if bytes.isEmpty { return "it is empty" }
        if bytes.count > maxBytes { return "it is \(bytes.count) bytes long, over \(maxBytes)" }
        if bytes.contains(0) { return "it holds a NUL byte" }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "it holds a control character" }
        if bytes.first == UInt8(ascii: "/") { return "it is absolute" }
        let components = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        if components.contains(where: \.isEmpty) { return "it has an empty component" }
        if components.contains(where: { $0.elementsEqual("..".utf8) || $0.elementsEqual(".".utf8) }) {
            return "it has a '.' or '..' component"
        }
        let folders = Container.Folder.allCases.map(\.rawValue)
        guard components.count == 2, let folder = String(components[0]), folders.contains(folder) else {
            return "it is not a file directly in " + folders.map { $0 + "/" }.joined(separator: ", ")
        }
        let name = components[1]
        if name.count > AttachmentName.nameMax { return "its name is over \(AttachmentName.nameMax) bytes" }
        if name.first == UInt8(ascii: ".") { return "its name is hidden (starts with '.')" }
        if relative.unicodeScalars.contains(where: NameSanitizer.isInvisibleOrControl) {
            return "it holds a control, bidi or invisible character"
        }
        return nil
    }

    /// True when `relative` passes `problem`.
    package static func isValid(_ relative: String) -> Bool { problem(relative) == nil }
}
