import Foundation

/// Where the test media live: the conformance set the repository carries, or an external corpus
/// with the same layout, and the repository's own generated fixtures.
///
///     let photos = Corpus.files(in: "photos")
///     let bytes = try Corpus.data("pngsuite/basn2c08.png")
///
/// `make test` reads only the repository: `TestImages/conformance/`, a trimmed copy of the public
/// corpus (see its SOURCES.md). `make conformance` sets `PUSHATTACH_CORPUS` to the full corpus
/// (default `../shared/corpus`) and runs the same suites over it. Paths are the corpus's own in both.
public enum Corpus {
    /// The package root, found from this file's location (Tests/TestSupport/Corpus.swift).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The conformance set the repository carries (`TestImages/conformance`).
    public static let bundled: URL = packageRoot.appendingPathComponent("TestImages/conformance")

    /// `$PUSHATTACH_CORPUS` when set, else the bundled conformance set.
    public static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["PUSHATTACH_CORPUS"], !env.isEmpty {
            return URL(fileURLWithPath: env).standardizedFileURL
        }
        return bundled
    }()

    /// True when the suites run over an external corpus (`make conformance`).
    public static var isExternal: Bool { root.standardizedFileURL.path != bundled.standardizedFileURL.path }

    /// The repository's generated fixtures.
    public static let testImages: URL = packageRoot.appendingPathComponent("TestImages")

    /// Folders the corpus-driven suites enumerate; each must hold media files.
    public static let folders = ["broken", "gif", "jpeg", "orientation", "photos", "pngsuite", "small", "webp"]

    /// A file under the corpus, e.g. `Corpus.url("photos/kodak_pixpro_fz201.jpg")`.
    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// The bytes of a corpus file.
    ///
    /// - Throws: `CorpusError.missing` naming the file and the corpus, when it is not there.
    public static func data(_ relative: String) throws -> Data {
        let file = url(relative)
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw CorpusError.missing(relative, corpus: root.path)
        }
        return try Data(contentsOf: file)
    }

    /// Every media file under `relative` (recursive), sorted, skipping docs, licences and the
    /// corpus's own tables.
    ///
    /// An empty result means a missing folder: `CorpusCompletenessTests` fails on it, so a
    /// parameterised test over it never passes as "no test cases".
    public static func files(in relative: String, extensions: Set<String>? = nil) -> [URL] {
        let base = url(relative)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey])
        else {
            return []
        }
        var out: [URL] = []
        for case let file as URL in walker {
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            if isDocument(file.lastPathComponent) { continue }
            if let extensions, !extensions.contains(file.pathExtension.lowercased()) { continue }
            out.append(file)
        }
        return out.sorted { $0.path < $1.path }
    }

    /// The header of a corpus photo (its bytes through the SOS header) from the bundled set, in
    /// either mode: `photo-headers/NAME`, or the whole of `photos/NAME` where the set carries it.
    /// Real camera Exif for the sniffer and orientation tests, without megabytes of scan data.
    public static func cameraHeader(_ name: String) throws -> Data {
        for folder in ["photo-headers", "photos"] {
            let file = bundled.appendingPathComponent(folder).appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: file.path) { return try Data(contentsOf: file) }
        }
        throw CorpusError.missing("photo-headers/\(name)", corpus: bundled.path)
    }

    /// The path of `file` relative to the corpus root, e.g. "pngsuite/basn2c08.png".
    public static func relativePath(_ file: URL) -> String {
        let base = root.standardizedFileURL.path
        let prefix = base.hasSuffix("/") ? base : base + "/"
        let path = file.standardizedFileURL.path
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// Readmes, licences, checksums and the corpus's tables: not media.
    public static func isDocument(_ name: String) -> Bool {
        let ext = (name as NSString).pathExtension.lowercased()
        return ["md", "txt", "toml", "md5", "ijg", "markdown", "tsv", "sha256"].contains(ext)
            || name.hasPrefix("LICENSE") || name.hasSuffix("LICENSE")
            || name.hasPrefix("PngSuite.") || name.hasPrefix("README")
    }
}

/// A corpus file a test needs is not there.
public enum CorpusError: Error, CustomStringConvertible {
    case missing(String, corpus: String)

    public var description: String {
        switch self {
        case .missing(let relative, let corpus):
            "test corpus file \(relative) is missing from \(corpus); the bundled set is rebuilt by "
                + "Scripts/make-conformance-set, and PUSHATTACH_CORPUS must point at a full corpus"
        }
    }
}
