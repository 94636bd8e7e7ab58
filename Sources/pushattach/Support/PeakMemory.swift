import Foundation

/// This process's peak resident set size, from `/proc/self/status` (VmHWM), which, unlike
/// getrusage's ru_maxrss, is not inherited from the parent across fork and exec.
enum PeakMemory {
    static var bytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kB = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
            return (kB ?? 0) * 1024
        }
        return 0
    }
}
