import Foundation
import PushPayloads
import SystemSupport

extension AttachmentName {
    /// How the UUID part is chosen.
    package enum Naming: Sendable, Hashable {
        /// A fresh random UUID (version 4) per file.
        case random
        /// A name-based UUID (version 5, URL namespace) of the URL, so re-runs give the same
        /// names (`--stable-names`).
        case stable
    }

    /// The name of the file prepared from `url`: `<name>` from `suggestedFilename` (a
    /// Content-Disposition filename) or else the URL's last path component.
    ///
    ///     let name = AttachmentName(url: "https://x.test/p/My%20Cat.webp", fileExtension: "jpg",
    ///                               naming: .stable)
    ///     name.fileName     // "3F2C…-My-Cat.jpg", the same on every run
    package init(url: String, suggestedFilename: String? = nil, fileExtension: String, naming: Naming = .random) {
        let uuid =
            switch naming {
            case .random: UUID()
            case .stable: UUID(version5: url)
            }
        self.init(
            uuid: uuid, suggestedFilename: suggestedFilename ?? Self.lastPathComponent(of: url),
            fileExtension: fileExtension)
    }
}
