import Foundation

/// Where the test media live: the shared public corpus beside the repository, and the
/// repository's own generated fixtures.
///
///     let photos = try Corpus.files(in: "photos")
public enum Corpus {
    /// The package root, found from this file's location (Tests/TestSupport/Corpus.swift).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/corpus`, or `$PUSHATTACH_CORPUS` when set.
    public static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["PUSHATTACH_CORPUS"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    }()

    /// The repository's generated fixtures.
    public static let testImages: URL = packageRoot.appendingPathComponent("TestImages")

    public static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("SOURCES.md").path)
    }

    /// A file under the corpus, e.g. `Corpus.url("photos/nikon_d3100.jpg")`.
    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// The bytes of a corpus file.
    public static func data(_ relative: String) throws -> Data { try Data(contentsOf: url(relative)) }

    /// Every regular file under `relative` (recursive), sorted, skipping docs and licences.
    public static func files(in relative: String, extensions: Set<String>? = nil) -> [URL] {
        let base = url(relative)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else {
            return []
        }
        var out: [URL] = []
        for case let file as URL in walker {
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let name = file.lastPathComponent
            let ext = file.pathExtension.lowercased()
            if ["md", "txt", "toml", "md5", "ijg"].contains(ext) || name.hasPrefix("LICENSE") || name.hasSuffix("LICENSE")
                || name.hasPrefix("PngSuite.") || name.hasPrefix("README")
            {
                continue
            }
            if let extensions, !extensions.contains(ext) { continue }
            out.append(file)
        }
        return out.sorted { $0.path < $1.path }
    }
}
