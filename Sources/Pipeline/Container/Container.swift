import Foundation
import MediaTypes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The output folder of `pushattach prepare`: one sub-folder per category, locked for the
/// length of the run.
///
///     let container = try Container.open(at: URL(fileURLWithPath: "out"))
///     let name = AttachmentName(url: item.url, fileExtension: format.fileExtension, naming: .stable)
///     let relative = try container.write(bytes, named: name, category: .image)   // "Images/…-cat.jpg"
///
/// Opening creates `Images/`, `Audio/`, `Video/` and `Thumbnails/`, takes the lock and then
/// removes temporaries a crashed run left behind (only after the lock, so a live run's are safe).
public final class Container: Sendable {
    public let url: URL
    public let lock: ContainerLock

    /// The folder, relative to the container, for each kind of file.
    public enum Folder: String, Sendable, CaseIterable {
        case images = "Images", audio = "Audio", video = "Video", thumbnails = "Thumbnails"

        public init(_ category: MediaCategory) {
            switch category {
            case .image: self = .images
            case .audio: self = .audio
            case .movie: self = .video
            }
        }
    }

    private init(url: URL, lock: ContainerLock) {
        self.url = url
        self.lock = lock
    }

    /// Creates the folders, takes the lock, checks every folder is writable (EACCES / EROFS are
    /// fatal `ContainerError`s naming the folder) and removes stale temporaries.
    public static func open(at url: URL) throws(ContainerError) -> Container {
        let root = url.standardizedFileURL
        try createFolder(root)
        let lock = try ContainerLock(directory: root)
        for folder in Folder.allCases { try createFolder(root.appendingPathComponent(folder.rawValue)) }
        // A folder the run cannot write into fails every item of its kind: say so now, before
        // anything is downloaded, naming the folder.
        for folder in [root] + Folder.allCases.map({ root.appendingPathComponent($0.rawValue) }) {
            let path = folder.path
            try SystemCall.run("access", path: path) { access(path, W_OK | X_OK) }
        }
        let container = Container(url: root, lock: lock)
        container.removeStaleTemporaries()
        return container
    }

    /// The absolute URL of `folder`.
    public func folderURL(_ folder: Folder) -> URL { url.appendingPathComponent(folder.rawValue) }

    /// Writes `data` atomically as `<folder>/<name.fileName>` and returns the path relative to
    /// the container, as the manifest records it.
    @discardableResult
    public func write(_ data: Data, named name: AttachmentName, in folder: Folder) throws(ContainerError) -> String {
        let relative = folder.rawValue + "/" + name.fileName
        try AtomicWriter.write(data, to: url.appendingPathComponent(relative))
        return relative
    }

    /// Removes `.<name>.tmp-<hex>` files left in the container and its folders by a crash.
    /// Returns the names removed.
    @discardableResult
    public func removeStaleTemporaries() -> [String] {
        var removed: [String] = []
        let folders = [url] + Folder.allCases.map(folderURL)
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names where AtomicWriter.isTemporaryName(name) {
                if (try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))) != nil {
                    removed.append(folder == url ? name : "\(folder.lastPathComponent)/\(name)")
                }
            }
        }
        return removed
    }

    /// Removes attachment files no prepared entry refers to: on `--resume` with random names, a
    /// file written just before a crash, whose manifest line never made it, would otherwise stay
    /// behind. `keeping` holds paths relative to the container (`Images/…`). Returns the removed
    /// paths.
    ///
    ///     let resume = try Manifest.load(dir: container.url)
    ///     container.removeUnreferencedFiles(keeping: resume.referencedFiles)
    @discardableResult
    public func removeUnreferencedFiles(keeping: Set<String>) -> [String] {
        var removed: [String] = []
        for folder in Folder.allCases {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folderURL(folder).path)) ?? []
            for name in names.sorted() where !name.hasPrefix(".") {
                let relative = folder.rawValue + "/" + name
                guard !keeping.contains(relative) else { continue }
                if (try? FileManager.default.removeItem(at: url.appendingPathComponent(relative))) != nil {
                    removed.append(relative)
                }
            }
        }
        return removed
    }

    /// `mkdir -p`, through the system-call wrapper so errors carry errno and advice.
    private static func createFolder(_ folder: URL) throws(ContainerError) {
        let path = folder.path
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw .system(call: "mkdir", path: path, errno: ENOTDIR) }
            return
        }
        do {
            try SystemCall.run("mkdir", path: path) { mkdir(path, 0o755) }
        } catch {
            guard case let .system(_, _, code) = error else { throw error }
            switch code {
            case EEXIST: return try createFolder(folder)  // raced with another creator
            case ENOENT where folder.pathComponents.count > 1:
                try createFolder(folder.deletingLastPathComponent())
                try SystemCall.run("mkdir", path: path) { mkdir(path, 0o755) }
            default: throw error
            }
        }
    }
}
