import Foundation

/// Facts about the machine a run happened on.
public enum Machine {
    public static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Monotonic seconds.
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// This process's peak resident set so far: VmHWM of /proc/self/status on Linux, else getrusage.
    /// (Linux's ru_maxrss survives exec: a bench started by a large process, such as
    /// Benchmarks/compare after it has held a 49 MP reference image, would report its parent's peak.)
    public static var peakRSSBytes: Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kibibytes = Int(line.dropFirst("VmHWM:".count).split(whereSeparator: \.isWhitespace).first ?? "")
        {
            return kibibytes * 1024
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
    }

    /// The 1-minute load average, to judge how noisy a measurement was.
    public static func loadAverage() -> Double {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) > 0 ? loads[0] : -1
    }

    /// "AMD EPYC, 2 cores" from /proc/cpuinfo.
    public static func describe() -> String {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            info.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        return "\(model), \(cores) cores"
    }
}
