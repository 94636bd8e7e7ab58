import Foundation

/// What a benchmark run measures: which workloads, on which folder, how many rounds and threads.
///
///     let config = try BenchConfiguration.parse(["--workload", "w1", "--rounds", "3"])
///     let report = try BenchRunner(config).run()
public struct BenchConfiguration: Sendable {
    public var workloads: [Workload] = [.w1, .w2, .w3]
    public var rounds = 5
    /// nil: single-threaded and all cores; otherwise only this many threads.
    public var threads: Int?
    public var folder: URL?
    public var json = false
    /// Where W1/W2 outputs of the single-thread warm-up are written (for quality checks).
    public var outputFolder: URL?
    /// `ProcessingLimits.validateAllScans` / `DecodeOptions.validateAllScans` of the workloads:
    /// false (`--skip-ac-scans`) lets a progressive JPEG decoded at 1/8 stop after its DC scans.
    public var validateAllScans = true

    public init() {}

    /// The options both `pushattach-bench` and `pushattach bench` take: the one table their
    /// parsers, `--help`, and `pushattach`'s man page and completion scripts read.
    public static let options: [BenchOption] = {
        let defaults = BenchConfiguration()
        return [
            BenchOption(
                "--workload", "LIST", "Comma-separated workloads.",
                default: defaults.workloads.map(\.rawValue).joined(separator: ","),
                choices: Workload.allCases.map(\.rawValue)),
            BenchOption("--rounds", "N", "Measured rounds after the warm-up.", default: "\(defaults.rounds)"),
            BenchOption("--threads", "N", "Only this many threads.", default: "1, then all cores"),
            BenchOption(
                "--folder", "DIR",
                "Images to read (default \(corpusPhotos) when present, else the photos the repository carries, \(repositoryPhotos), when run from its root; with neither, pass --folder). W3 adds PNG and WebP from TestImages/ and the corpus' webp/ and pngsuite/ when the folder has none. W4 reads the folder's PNGs only (Scripts/memcheck/images.py writes large ones); W5 its HEIC and AVIF files (Benchmarks/make-heif-set writes some). A1 reads the folder's animated WebPs, or borrows them like W3.",
                isDirectory: true),
            BenchOption("--json", nil, "One JSON document instead of the table."),
            BenchOption(
                "--skip-ac-scans", nil,
                "A progressive JPEG decoded at 1/8 (W1, D1) stops once its DC scans are read (ProcessingLimits.validateAllScans = false); prepare and verify always read every scan."),
            BenchOption(
                "--output", "DIR",
                "Also write the W1/W2/W4/A1 outputs of the warm-up (NAME.w1.jpg; W4: NAME.w4.jpg or .png; A1: NAME.a1.gif), for quality checks.",
                isDirectory: true),
        ]
    }()
    public static let flags: Set<String> = Set(options.filter { $0.placeholder == nil }.map(\.name))
    public static let valueOptions: Set<String> = Set(options.filter { $0.placeholder != nil }.map(\.name))

    /// The first line of `--help`.
    public static let summary =
        "Measure decode/resize/encode throughput in-process, from encoded bytes in memory to encoded bytes in memory, through the same code the product runs."
    /// How a run goes, after the workloads in `--help`.
    public static let method =
        "Each runs single-threaded and on all cores (one worker per thread), after a warm-up round; figures are the median of the rounds. Peak RSS is the process's high-water mark so far (VmHWM), so run w1 first to read its own peak."

    /// Builds a configuration from already-split options (the CLI's parser does the splitting).
    public init(values: [String: String], flags: Set<String>) throws(BenchUsageError) {
        json = flags.contains("--json")
        validateAllScans = !flags.contains("--skip-ac-scans")
        if let raw = values["--workload"] {
            var list: [Workload] = []
            for name in raw.lowercased().split(separator: ",") {
                guard let workload = Workload(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                    throw BenchUsageError(
                        "--workload: unknown workload '\(name)' (expected w1, w2, w3, w4, w5, a1, d1, d2, comma-separated)")
                }
                if !list.contains(workload) { list.append(workload) }
            }
            guard !list.isEmpty else { throw BenchUsageError("--workload needs at least one of w1, w2, w3") }
            workloads = list
        }
        if let raw = values["--rounds"] {
            guard let n = Int(raw), (1...1000).contains(n) else {
                throw BenchUsageError("--rounds must be a whole number in 1...1000, got '\(raw)'")
            }
            rounds = n
        }
        if let raw = values["--threads"] {
            guard let n = Int(raw), (1...256).contains(n) else {
                throw BenchUsageError("--threads must be a whole number in 1...256, got '\(raw)'")
            }
            threads = n
        }
        if let raw = values["--folder"] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: raw, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw BenchUsageError("--folder: '\(raw)' is not a folder; give a folder of JPEG, PNG or WebP images")
            }
            folder = URL(fileURLWithPath: raw)
        }
        if let raw = values["--output"] {
            do {
                try FileManager.default.createDirectory(atPath: raw, withIntermediateDirectories: true)
            } catch {
                throw BenchUsageError("--output: cannot create folder '\(raw)': \(error.localizedDescription)")
            }
            outputFolder = URL(fileURLWithPath: raw)
        }
    }

    /// Splits `arguments` (`--name value`, `--name=value`, flags) and builds the configuration.
    /// `--help` is reported by returning nil.
    public static func parse(_ arguments: [String]) throws(BenchUsageError) -> BenchConfiguration? {
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var i = 0
        while i < arguments.count {
            var name = arguments[i]
            i += 1
            if name == "-h" || name == "--help" { return nil }
            var inline: String?
            if let eq = name.firstIndex(of: "="), name.hasPrefix("--") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if Self.flags.contains(name) {
                guard inline == nil else { throw BenchUsageError("\(name) takes no value") }
                flags.insert(name)
            } else if valueOptions.contains(name) {
                if let inline {
                    values[name] = inline
                } else {
                    guard i < arguments.count else { throw BenchUsageError("\(name) needs a value") }
                    values[name] = arguments[i]
                    i += 1
                }
            } else {
                throw BenchUsageError("unknown argument '\(name)'")
            }
        }
        return try BenchConfiguration(values: values, flags: flags)
    }

    /// The shared corpus' photos, beside the repository.
    public static let corpusPhotos = "../shared/corpus/photos"
    /// The photos the repository carries, relative to its root.
    public static let repositoryPhotos = "TestImages/conformance/photos"

    /// The folder to read: `--folder`, else `../shared/corpus/photos` when present, else the
    /// photos the repository carries (`TestImages/conformance/photos`) when run from its root;
    /// nil when there is none of them.
    public func resolvedFolder() -> URL? {
        if let folder { return folder }
        for candidate in [Self.corpusPhotos, Self.repositoryPhotos] {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), isDirectory.boolValue {
                return URL(fileURLWithPath: candidate).standardizedFileURL
            }
        }
        return nil
    }

    /// `resolvedFolder()`, or a usage error saying what to pass when there is none.
    public func folderToRead() throws(BenchUsageError) -> URL {
        guard let folder = resolvedFolder() else {
            let here = FileManager.default.currentDirectoryPath
            throw BenchUsageError(
                "no images to measure: there is no \(Self.corpusPhotos) or \(Self.repositoryPhotos) here (\(here)); run from the repository's root, or pass --folder DIR with JPEG, PNG or WebP images"
            )
        }
        return folder
    }

    /// The `--help` text, for `command` ("pushattach-bench" or "pushattach bench").
    public static func help(command: String) -> String {
        /// `text` filled to `width` columns.
        func wrap(_ text: String, width: Int) -> [String] {
            var lines = [""]
            for word in text.split(separator: " ") {
                if !lines[lines.count - 1].isEmpty, lines[lines.count - 1].count + 1 + word.count > width {
                    lines.append("")
                }
                lines[lines.count - 1] += (lines[lines.count - 1].isEmpty ? "" : " ") + word
            }
            return lines
        }
        /// Labels in a column `width` wide, their text wrapped beside it to 100 columns.
        func column(_ rows: [(String, String)], width: Int) -> String {
            rows.map { label, text in
                "  " + label.padding(toLength: width, withPad: " ", startingAt: 0)
                    + wrap(text, width: 98 - width).joined(separator: "\n" + String(repeating: " ", count: width + 2))
            }.joined(separator: "\n")
        }
        let workloads = column(Workload.allCases.map { ($0.rawValue, $0.summary) }, width: 4)
        let table = column(
            options.map { ($0.label, $0.helpWithDefault) } + [("-h, --help", "Show this help.")], width: 18)
        return """
            \(wrap("OVERVIEW: " + summary, width: 100).joined(separator: "\n"))

            Workloads:
            \(workloads)
            \(wrap(method, width: 100).joined(separator: "\n"))

            USAGE: \(command) [options]

            OPTIONS:
            \(table)

            EXAMPLES:
              make bench
              \(command) --workload w1 --threads 1 --rounds 3 --json
            """
    }
}

/// One option of the benchmark (`BenchConfiguration.options`).
public struct BenchOption: Sendable {
    /// `--rounds`.
    public var name: String
    /// `N`; nil for a switch.
    public var placeholder: String?
    public var help: String
    /// What a run without the option gets.
    public var defaultText: String?
    /// The words a value is made of (comma-separated when several), for shell completion.
    public var choices: [String]
    /// The value names a folder.
    public var isDirectory: Bool

    init(
        _ name: String, _ placeholder: String?, _ help: String, default defaultText: String? = nil,
        choices: [String] = [], isDirectory: Bool = false
    ) {
        self.name = name
        self.placeholder = placeholder
        self.help = help
        self.defaultText = defaultText
        self.choices = choices
        self.isDirectory = isDirectory
    }

    /// `--rounds N`.
    public var label: String { placeholder.map { "\(name) \($0)" } ?? name }

    /// The help sentence with its default.
    public var helpWithDefault: String {
        guard let defaultText else { return help }
        return "\(help.hasSuffix(".") ? String(help.dropLast()) : help) (default \(defaultText))."
    }
}

/// The benchmark workloads of issue 5.
public enum Workload: String, Sendable, CaseIterable {
    case w1, w2, w3
    /// Large PNGs fitted like W2 (issue 11): not in the default, it needs a folder of them.
    case w4
    /// HEIC and AVIF fitted like W2 (issue 14): not in the default, it needs a folder of them
    /// (`Benchmarks/make-heif-set` writes ~12 MP ones from the corpus photos).
    case w5
    /// Animated WebP -> animated GIF (issue 14): not in the default.
    case a1
    /// Diagnostics: only the scaled decode W1 / W2 make (our codec's own floor).
    case d1, d2

    /// What the workload measures, for `--help`.
    public var summary: String {
        switch self {
        case .w1: "thumbnail: fit in 256x256, EXIF orientation applied, JPEG q80"
        case .w2: "fit in 2048x2048, JPEG q85"
        case .w3: "full-size decode per format (JPEG, PNG, WebP), in megapixels/s"
        case .w4:
            "large PNGs (the folder's PNGs): fit in 2048x2048, JPEG q85, or PNG when the alpha is real; not in the default"
        case .w5:
            "HEIC and AVIF (the folder's, e.g. from Benchmarks/make-heif-set): libheif decode + fit in 2048x2048, JPEG q85 (PNG with alpha); not in the default"
        case .a1:
            "animations: the folder's animated WebPs (to animated GIF) and GIFs (scaled down when over the limits), fit 2048, 10 MB; a folder with neither borrows the animated WebPs of TestImages/ and the corpus' webp/; not in the default"
        case .d1: "diagnostic: only the scaled decode W1 makes (our codec floor); not in the default"
        case .d2: "diagnostic: only the scaled decode W2 makes (our codec floor); not in the default"
        }
    }

    public var title: String {
        switch self {
        case .w1: "W1 thumbnail 256 q80"
        case .w2: "W2 fit 2048 q85"
        case .w3: "W3 full decode"
        case .w4: "W4 large PNG fit 2048"
        case .w5: "W5 HEIC/AVIF fit 2048"
        case .a1: "A1 animated WebP -> GIF"
        case .d1: "D1 W1's scaled decode alone"
        case .d2: "D2 W2's scaled decode alone"
        }
    }
}

/// A mistake in the options: one line, exit status 64.
public struct BenchUsageError: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
