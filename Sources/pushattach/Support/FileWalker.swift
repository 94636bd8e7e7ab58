import Foundation

/// Expands the paths given on the command line into regular files, in a stable order.
enum FileWalker {
    /// Files as given, and every regular non-hidden file under each folder, sorted per folder.
    static func regularFiles(under paths: [String]) -> [String] {
        var out: [String] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            guard isDirectory.boolValue else {
                out.append(path)
                continue
            }
            let base = URL(fileURLWithPath: path)
            guard let walker = fm.enumerator(
                at: base, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
            else { continue }
            var found: [String] = []
            for case let url as URL in walker
            where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                found.append(path.hasSuffix("/") ? path + relative(url, to: base) : path + "/" + relative(url, to: base))
            }
            out += found.sorted()
        }
        return out
    }

    private static func relative(_ url: URL, to base: URL) -> String {
        let full = url.standardizedFileURL.path
        let root = base.standardizedFileURL.path
        return full.hasPrefix(root + "/") ? String(full.dropFirst(root.count + 1)) : url.lastPathComponent
    }
}

/// Runs a closure over every element on all cores, keeping order. For CPU-bound batches in
/// commands that have nothing else to do meanwhile.
enum ParallelMap {
    static func map<T: Sendable, R: Sendable>(_ items: [T], _ transform: @Sendable (T) -> R) -> [R] {
        let slots = Slots<R>(count: items.count)
        DispatchQueue.concurrentPerform(iterations: items.count) { i in
            slots.set(i, transform(items[i]))
        }
        return slots.values
    }

    /// One slot per iteration; each is written once, under a lock.
    private final class Slots<R>: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [R?]
        init(count: Int) { storage = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ value: R) { lock.withLock { storage[i] = value } }
        var values: [R] { lock.withLock { storage.map { $0! } } }
    }
}
