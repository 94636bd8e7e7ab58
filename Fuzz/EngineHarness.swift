#if FUZZING
    import EngineFuzzKit
    import Foundation
    import ImageEngine
    import MediaTypes

    @testable import PushAttach  // MediaStage is a package declaration; fuzz builds are debug builds (-enable-testing)

    @testable import PushAttachBatch

    /// Generative whole-engine fuzzing (docs/ROBUSTNESS.md, "Generative engine fuzzing"): not
    /// libFuzzer-driven. Generated images, one per seed, through `prepare`'s per-item call
    /// (`MediaStage.prepare`), each output checked (`EngineFuzz`).
    ///
    ///     PUSHATTACH_FUZZ_TARGET=engine PushAttachFuzz --seconds 600 --findings DIR [--seed N]
    ///     PUSHATTACH_FUZZ_TARGET=engine PushAttachFuzz --seed N --count 1 --verbose   # one case
    ///
    /// The process given these arguments supervises: it runs the seeds in a worker process (itself
    /// with `--worker`) and, when a case crashes the worker, keeps that case's input as
    /// `DIR/crash-seed-N.EXT` (with its description in `.txt`), then starts a new worker at the
    /// next seed, until the time is up. A case whose checks fail is kept as `DIR/failure-seed-N.*`.
    /// At the end: the cases per output path and the seeds of every finding. Exit status 1 when
    /// there is any finding.
    enum EngineHarness {
        struct Options {
            var seconds = 60.0
            var firstSeed = UInt64(Date().timeIntervalSince1970 * 1000) % 1_000_000_000
            var count = Int.max
            var findings = ".build/fuzz/findings/engine"
            var verbose = false
            var worker = false
        }

        /// A worker's exit status when a check failed (1 is the sanitizers' own).
        static let checksFailed: Int32 = 3

        static func main(_ arguments: [String]) -> CInt {
            var options = Options()
            var i = 1
            while i < arguments.count {
                let value = i + 1 < arguments.count ? arguments[i + 1] : ""
                switch arguments[i] {
                case "--seconds": options.seconds = Double(value) ?? options.seconds; i += 1
                case "--seed": options.firstSeed = UInt64(value) ?? options.firstSeed; i += 1
                case "--count": options.count = Int(value) ?? options.count; i += 1
                case "--findings": options.findings = value; i += 1
                case "--verbose": options.verbose = true
                case "--worker": options.worker = true
                default:
                    say(
                        "engine: unknown argument \(arguments[i]) (have --seconds, --seed, --count, --findings, --verbose)"
                    )
                    return 64
                }
                i += 1
            }
            try? FileManager.default.createDirectory(atPath: options.findings, withIntermediateDirectories: true)
            return options.worker ? work(options) : supervise(options)
        }

        static func casesFile(_ options: Options) -> String { "\(options.findings)/cases.tsv" }

        // MARK: - Supervisor

        static func supervise(_ options: Options) -> CInt {
            say("engine: seeds from \(options.firstSeed), \(Int(options.seconds)) s, findings in \(options.findings)")
            say("engine: one case again: PUSHATTACH_FUZZ_TARGET=engine PushAttachFuzz --seed N --count 1 --verbose")
            let start = Date()
            let cases = casesFile(options)
            _ = FileManager.default.createFile(atPath: cases, contents: nil)
            var seed = options.firstSeed
            var crashes: [UInt64] = []
            while true {
                let remaining = options.seconds - Date().timeIntervalSince(start)
                let done = lines(cases).count
                guard remaining > 1, done < options.count else { break }
                let arguments =
                    [
                        "--worker", "--seed", "\(seed)", "--seconds", "\(remaining)", "--findings", options.findings,
                        "--count", "\(options.count == .max ? Int.max : options.count - done)",
                    ] + (options.verbose ? ["--verbose"] : [])
                guard let (exited, status) = spawnSelf(arguments) else {
                    say("engine: cannot start a worker")
                    return 1
                }
                if exited, status == 0 || status == checksFailed { break }
                // A crash (a signal, or a sanitizer's exit 1): the case in flight is kept by its seed.
                let inflight =
                    (try? FileManager.default.contentsOfDirectory(atPath: options.findings))?
                    .filter { $0.hasPrefix("inflight-seed-") } ?? []
                guard
                    let crashed = inflight.compactMap({ name -> UInt64? in
                        UInt64(name.dropFirst("inflight-seed-".count).prefix { $0.isNumber })
                    }).max()
                else {
                    say(
                        "engine: the worker died (\(exited ? "status" : "signal") \(status)) between cases: see the report above"
                    )
                    crashes.append(seed)
                    break
                }
                for name in inflight {
                    let path = "\(options.findings)/\(name)"
                    try? FileManager.default.moveItem(
                        atPath: path, toPath: "\(options.findings)/crash-\(name.dropFirst("inflight-".count))")
                }
                say("CRASH seed \(crashed): input kept as \(options.findings)/crash-seed-\(crashed).*")
                crashes.append(crashed)
                appendLine("\(crashed)\tcrash\t\t\(containerOf(crashed))\t0\t0", to: cases)
                seed = crashed + 1
            }
            return summarise(options, start: start, crashes: crashes)
        }

        /// Counts from the workers' case lines: seed, "ok"/"fail"/"crash", paths, container, seconds,
        /// the largest fraction of a pixel tolerance used.
        static func summarise(_ options: Options, start: Date, crashes: [UInt64]) -> CInt {
            var counts = PathCounts()
            var failures: [UInt64] = []
            var slowest = (seconds: 0.0, seed: "")
            var last = options.firstSeed
            for line in lines(casesFile(options)) {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                guard fields.count >= 5, let container = EngineCase.Container(rawValue: fields[3]) else { continue }
                let paths = Set(fields[2].split(separator: ",").compactMap { OutputPath(rawValue: String($0)) })
                counts.add(paths: paths, container: container, failed: fields[1] != "ok")
                if fields[1] == "fail", let seed = UInt64(fields[0]) { failures.append(seed) }
                if let s = Double(fields[4]), s > slowest.seconds { slowest = (s, fields[0]) }
                last = max(last, UInt64(fields[0]) ?? last)
            }
            let elapsed = Int(Date().timeIntervalSince(start))
            say(
                "engine: seeds \(options.firstSeed)...\(last) in \(elapsed) s; slowest case \(String(format: "%.1f", slowest.seconds)) s (seed \(slowest.seed))"
            )
            say("engine: \(counts)")
            if !counts.missing.isEmpty {
                say("engine: paths not reached: \(counts.missing.map(\.rawValue).joined(separator: ", "))")
            }
            say(
                "engine: crashes \(crashes.count)\(crashes.isEmpty ? "" : ": seeds \(crashes.map(String.init).joined(separator: " "))")"
            )
            say(
                "engine: failed checks \(failures.count)\(failures.isEmpty ? "" : ": seeds \(failures.map(String.init).joined(separator: " "))")"
            )
            // The lines Scripts/fuzz reads (as from libFuzzer's -print_final_stats).
            say("stat::number_of_executed_units: \(counts.cases)")
            return crashes.isEmpty && failures.isEmpty ? 0 : 1
        }

        // MARK: - Worker

        static func work(_ options: Options) -> CInt {
            let start = Date()
            var seed = options.firstSeed
            var count = 0
            var failed = false
            while count < options.count, Date().timeIntervalSince(start) < options.seconds {
                let inflight = "\(options.findings)/inflight-seed-\(seed)"
                var written: [String] = []
                let result = EngineFuzz.run(seed: seed, prepare: MediaStage.engineFuzzOutcome) {
                    data, ext, description in
                    _ = FileManager.default.createFile(atPath: "\(inflight).\(ext)", contents: data)
                    _ = FileManager.default.createFile(
                        atPath: "\(inflight).txt", contents: Data((description + "\n").utf8))
                    written = ["\(inflight).\(ext)", "\(inflight).txt"]
                }
                for path in written { try? FileManager.default.removeItem(atPath: path) }
                let paths = result.paths.map(\.rawValue).sorted().joined(separator: ",")
                if options.verbose || !result.failures.isEmpty {
                    say(result.description)
                    say("  paths: \(paths); \(String(format: "%.2f", result.seconds)) s")
                    for step in result.steps { say("  | \(step)") }
                    for measurement in result.measurements { say("  = \(measurement)") }
                }
                if !result.failures.isEmpty {
                    failed = true
                    say("FAIL seed \(seed): \(result.failures.joined(separator: "; "))")
                    let base = "\(options.findings)/failure-seed-\(seed)"
                    _ = FileManager.default.createFile(
                        atPath: "\(base).\(result.inputExtension)", contents: result.input)
                    let text = ([result.description] + result.failures + ["steps:"] + result.steps).joined(
                        separator: "\n")
                    _ = FileManager.default.createFile(atPath: "\(base).txt", contents: Data((text + "\n").utf8))
                }
                appendLine(
                    "\(seed)\t\(result.failures.isEmpty ? "ok" : "fail")\t\(paths)\t\(result.container.rawValue)\t\(result.seconds)\t\(String(format: "%.2f", result.toleranceUsed))",
                    to: casesFile(options))
                seed += 1
                count += 1
            }
            return failed ? checksFailed : 0
        }

        // MARK: - Helpers

        /// Runs this executable with `arguments` (and this environment) and waits: (exited
        /// normally, its status or signal); nil when it cannot start.
        static func spawnSelf(_ arguments: [String]) -> (exited: Bool, status: Int32)? {
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
            var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
            var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            var pid: pid_t = 0
            guard posix_spawn(&pid, executable, nil, nil, &argv, &envp) == 0 else { return nil }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
            return status & 0x7F == 0 ? (true, (status >> 8) & 0xFF) : (false, status & 0x7F)
        }

        static func containerOf(_ seed: UInt64) -> String { EngineCase(seed: seed).container.rawValue }

        static func lines(_ path: String) -> [Substring] {
            // Through FileHandle: FileManager.contents(atPath:) leaks its buffer on an empty file
            // (docs/ROBUSTNESS.md, suppressed leaks), which LeakSanitizer would report.
            guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.readToEnd() else { return [] }
            defer { try? handle.close() }
            return String(decoding: data, as: UTF8.self).split(separator: "\n")
        }

        static func appendLine(_ line: String, to path: String) {
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            defer { try? handle.close() }
            _ = try? handle.seekToEnd()
            handle.write(Data((line + "\n").utf8))
        }
    }

    /// One line to standard output, unbuffered, so the log has it even when the next case crashes.
    func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

    extension MediaStage {
        /// `prepare`'s per-item call for one generated body, under a run's rules and engine limits.
        static func engineFuzzOutcome(_ data: Data, rules: AppleRules, limits: ProcessingLimits) -> StageOutcome {
            var options = ItemOptions(container: URL(fileURLWithPath: "/nonexistent"))
            options.cpuThreads = 1
            // `limits` first: it holds the policy, so setting it whole after the rules would undo them.
            options.limits = limits
            options.policy.rules = rules
            let outcome = MediaStage(options: options).prepare(data, claims: MediaClaims())
            return StageOutcome(
                prepared: outcome.status == .prepared, reason: outcome.reason, data: outcome.data,
                format: outcome.format,
                width: outcome.width, height: outcome.height, frames: outcome.frames, steps: outcome.steps,
                warnings: outcome.warnings, thumbnail: outcome.thumbnail, outputIsInput: outcome.outputIsInput)
        }
    }
#endif
