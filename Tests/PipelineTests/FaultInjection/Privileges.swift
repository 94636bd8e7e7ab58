import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the fault-injection tests need from the system: root (or CAP_SYS_ADMIN) to mount a
/// small tmpfs, and `setpriv` to run the binary as an unprivileged user. Tests that need them
/// are skipped with these reasons when they are missing.
enum Privileges {
    static let nobody: UInt32 = 65534

    /// Whether `mount -t tmpfs` works here, found by mounting and unmounting one once.
    static let canMountTmpfs: Bool = {
        guard geteuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("tmpfs-probe-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)) != nil else {
            return false
        }
        defer { try? FileManager.default.removeItem(at: probe) }
        guard run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.path]) == 0 else { return false }
        _ = run("/usr/bin/umount", [probe.path])
        return true
    }()

    static let mountReason: Comment =
        "needs root or CAP_SYS_ADMIN to mount a tmpfs (mount -t tmpfs failed or not root); skipped"

    static var canDropToNobody: Bool {
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    }

    static let dropReason: Comment =
        "needs root and util-linux setpriv to run the binary as uid 65534 (root ignores permission bits); skipped"

    /// Runs a system tool and returns its exit status (-1 when it cannot start).
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// A tmpfs mounted on a folder for the length of a test: `unmount()` in a `defer`.
///
///     let disk = try Tmpfs(at: dir.appendingPathComponent("disk"), options: "size=512k")
///     defer { disk.unmount() }
struct Tmpfs {
    let url: URL

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(at url: URL, options: String) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        guard Privileges.run("/usr/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", url.path]) == 0 else {
            throw Failure(description: "mount -t tmpfs -o \(options) tmpfs \(url.path) failed")
        }
        self.url = url
    }

    /// `mount -o remount,OPTIONS`: resize it, or make it read-only / writable.
    func remount(_ options: String) throws {
        guard Privileges.run("/usr/bin/mount", ["-o", "remount," + options, url.path]) == 0 else {
            throw Failure(description: "mount -o remount,\(options) \(url.path) failed")
        }
    }

    func unmount() {
        if Privileges.run("/usr/bin/umount", [url.path]) != 0 { Privileges.run("/usr/bin/umount", ["-l", url.path]) }
    }
}
