import Foundation
import MediaTypes

/// Everything that can go wrong at the container's file-system edge: writing attachment files,
/// the lock, and the manifest.
///
/// Reached from a library call as `AttachmentError.underlying`:
///
///     if case .container(let cause) = error.underlying, cause.isFatal {
///         print(cause)   // "rename(2) failed for /srv/out/Images/x.jpg: … — disk full: …"
///     }
public enum ContainerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A system call failed. `call` names it ("open", "write", "fsync", "rename", …).
    case system(call: String, path: String, errno: Int32)
    /// Another process holds the container's lock.
    case locked(path: String, holderPID: Int32?)
    /// A manifest or other container file could not be encoded or decoded.
    case encoding(path: String, reason: String)
    /// Something inside the container is not what PushAttach keeps there, and is refused rather
    /// than followed or written through: a symbolic link (to a file or folder elsewhere), a file
    /// that shares its data with another name, or a pipe, socket or device. Whoever can write
    /// into the container could otherwise make a run overwrite, append to or delete files
    /// outside it.
    case unsafeEntry(path: String, found: UnsafeEntry)
    /// The container's journals do not fit together or with this run: shard journals of two
    /// shard counts, a shard missing where a complete set is needed, or an unsharded run in a
    /// container of shards (and the reverse).
    case mismatched(path: String, reason: String)
    /// A merge that needs every shard found some unfinished (`missing` says which); a partial
    /// merge (`Setting.partialMerge`) writes what is there.
    case incompleteShards(path: String, missing: String)
    /// An unsharded run in a container holding the journals of a run in `shards` shards: it is
    /// continued with the same shard setting (`Setting.shard`), or in another container.
    case shardedContainer(path: String, shards: Int)
    /// A path was refused before `call` was made, for `reason` ("it holds a NUL byte", "it has a
    /// `..` component"): taken as it is, the call would act on another file than the one named,
    /// perhaps one outside the container. Such a path comes from outside (a journal line
    /// edited by hand or by an attacker) or from a bug; nothing was done with it.
    case refusedPath(call: String, path: String, reason: String)

    /// What `unsafeEntry` found.
    public enum UnsafeEntry: Sendable, Hashable {
        /// A symbolic link, to a file or a folder.
        case symbolicLink
        /// A file written in place (the lock, the journal) that has other hard links.
        case hardLinked(links: Int)
        /// Not a regular file: a pipe, socket or device.
        case specialFile
    }

    /// True when the whole run should stop (exit status 2): the disk is full or the container is
    /// not writable, so every later item would fail the same way.
    public var isFatal: Bool {
        switch self {
        case .system(_, _, let code): [ENOSPC, EDQUOT, EACCES, EPERM, EROFS].contains(code)
        case .locked, .unsafeEntry, .mismatched, .incompleteShards, .shardedContainer: true
        case .encoding, .refusedPath: false
        }
    }

    /// What went wrong, where, and what to do, naming settings as the library spells them
    /// (`description(naming:)` with `.library`).
    public var description: String { description(naming: .library) }

    /// The setting the advice names, if any: the folder, resuming, or how many run at once.
    public var setting: Setting? {
        switch self {
        case .locked: .container
        case .incompleteShards: .partialMerge
        case .shardedContainer: .shard
        case let .system(_, _, code):
            switch code {
            case ENOSPC, EDQUOT: .resume
            case EACCES, EPERM, EROFS, ENOENT, ENOTDIR, EISDIR, ENAMETOOLONG: .container
            case EMFILE, ENFILE: .maxInFlight
            default: nil
            }
        default: nil
        }
    }

    /// What went wrong, where, and what to do, with the setting to change spelled by `names`
    /// (the command line passes its flags).
    public func description(naming names: SettingNames) -> String {
        switch self {
        case let .system(call, path, code):
            let text = SystemCall.message(for: code)
            return "\(call)(2) failed for \(path): \(text) (errno \(code)) — \(Self.advice(for: code, names))"
        case let .locked(path, pid):
            let holder = pid.map { "process \($0)" } ?? "another process"
            return "container is in use: \(holder) holds \(path) — wait for that run to finish, "
                + "or use another \(names[.container])"
        case let .encoding(path, reason):
            return "cannot encode or decode \(path): \(reason)"
        case let .mismatched(path, reason):
            return "\(path): \(reason)"
        case let .incompleteShards(path, missing):
            return "\(path): \(missing); or merge with \(names[.partialMerge]), to write what is there"
        case let .shardedContainer(path, found):
            return "\(path): it holds the journals of a run in \(found) shards (manifest.*-of-\(found).jsonl): "
                + "continue it with the same \(names[.shard]), or use another \(names[.container])"
        case let .refusedPath(call, path, reason):
            return "\(call)(2) refused for \(DisplayText.escaped(path)): \(reason), so the call would act on "
                + "another file than the one named — check where the path came from (an edited journal?)"
        case let .unsafeEntry(path, .symbolicLink):
            return "\(path) is a symbolic link; PushAttach does not follow links inside the container: "
                + "remove it, then run again"
        case let .unsafeEntry(path, .hardLinked(links)):
            return "\(path) has \(links) hard links; PushAttach does not write into a file that other names "
                + "share: remove it, then run again"
        case let .unsafeEntry(path, .specialFile):
            return "\(path) is not a regular file (a pipe, socket or device); PushAttach keeps only its own "
                + "files there: remove it, then run again"
        }
    }

    /// For `.system`, the C library's text for the errno ("No such file or directory");
    /// otherwise the whole description.
    public var reason: String {
        if case let .system(_, _, code) = self { return SystemCall.message(for: code) }
        return description
    }

    private static func advice(for code: Int32, _ names: SettingNames) -> String {
        let folder = names[.container]
        return switch code {
        case ENOSPC, EDQUOT: "disk full: free some space, then re-run with \(names[.resume])"
        case EACCES, EPERM, EROFS: "container not writable: fix its permissions or choose another \(folder)"
        case ENOENT: "a folder on the way does not exist: create it or check the \(folder) path"
        case ENOTDIR: "a file stands where a folder is expected: choose another \(folder)"
        case EISDIR: "a folder stands where a file is expected: remove it or choose another \(folder)"
        case EMFILE, ENFILE: "too many open files: raise the limit (ulimit -n) or lower \(names[.maxInFlight])"
        case ENAMETOOLONG: "the path is too long: use a shorter \(folder) path"
        case EIO: "the disk reported an I/O error: check the device"
        default: "check the container folder and try again"
        }
    }
}
