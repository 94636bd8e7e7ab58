// libFuzzer entry points. Built only by `make fuzz` (`-DFUZZING -sanitize=fuzzer,address`);
// the ordinary build compiles the stub at the bottom so the package still links.
//
//     PUSHATTACH_FUZZ_TARGET=sniffer .build/fuzz/debug/PushAttachFuzz -max_total_time=600 corpus seeds
//
// The harness is chosen by PUSHATTACH_FUZZ_TARGET (see `Harness.all`; `engine` is the generative
// harness of EngineHarness.swift, which loops over seeds instead of libFuzzer inputs). Each harness feeds the bytes
// to one parser and ignores its thrown errors: a throw is a correct answer to hostile input; a trap,
// an ASan report, a hang (libFuzzer -timeout) or a leak is a finding.
#if FUZZING
    import Foundation

    /// One fuzz harness: a name for PUSHATTACH_FUZZ_TARGET and the function fed each input.
    struct Harness: Sendable {
        let name: String
        let run: @Sendable ([UInt8]) -> Void

        static let all: [Harness] = [
            snifferHarness, gifHarness, webpAnimationHarness, gifEncoderHarness, exifHarness, jpegHarness, pngHarness,
            webpHarness, heifHarness, hintHarness,
            inputHarness, dispositionHarness, filenameHarness, httpHarness,
        ]

        /// The harness named by PUSHATTACH_FUZZ_TARGET; exits with a usage message when unknown.
        static let selected: Harness = {
            let name = ProcessInfo.processInfo.environment["PUSHATTACH_FUZZ_TARGET"] ?? ""
            if let harness = all.first(where: { $0.name == name }) { return harness }
            let names = all.map { $0.name }.joined(separator: ", ")
            FileHandle.standardError.write(
                Data("PushAttachFuzz: set PUSHATTACH_FUZZ_TARGET to one of: \(names) (got '\(name)')\n".utf8))
            exit(64)
        }()
    }

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        Harness.selected.run(bytes)
        return 0
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// SwiftPM renames an executable target's `main` to `<Target>_main`; libFuzzer's driver runs here.
    @_cdecl("PushAttachFuzz_main")
    func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        // The generative engine harness loops over seeds itself (EngineHarness.swift).
        if ProcessInfo.processInfo.environment["PUSHATTACH_FUZZ_TARGET"] == "engine" {
            return EngineHarness.main(CommandLine.arguments)
        }
        _ = Harness.selected  // fail fast on a wrong target name, before libFuzzer starts
        var argc = argc
        var argv = argv
        return LLVMFuzzerRunDriver(&argc, &argv, fuzzOne)
    }
#else
    @main
    struct PushAttachFuzzStub {
        static func main() {
            print("pushattach fuzz harnesses: build and run them with `make fuzz` (see docs/ROBUSTNESS.md)")
        }
    }
#endif
