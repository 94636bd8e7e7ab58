import EngineFuzzKit
import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes
import Testing

@testable import Pipeline

/// A fixed slice of the generative engine fuzzer (`make fuzz` target `engine`, docs/ROBUSTNESS.md):
/// seeded cases, sides at most `maxSide`, through `MediaStage.prepare`, every check of the
/// fuzzer; and every output path reached, so the slice cannot silently test nothing.
@Suite("generative engine fuzzing: a seeded slice", .serialized)
struct EngineFuzzSliceTests {
    /// Seeds chosen so that every output path is reached in a few seconds of a debug build.
    static let seeds: [UInt64] = Array(0..<48)
    static let maxSide = 96

    @Test func everyPathIsReachedAndEveryCheckPasses() {
        var counts = PathCounts()
        for seed in Self.seeds {
            let result = EngineFuzz.run(seed: seed, maxSide: Self.maxSide, prepare: MediaStage.engineFuzzOutcome)
            counts.add(result)
            #expect(
                result.failures.isEmpty,
                "\(result.description)\n  \(result.failures.joined(separator: "\n  "))\n  steps: \(result.steps.joined(separator: "; "))"
            )
        }
        #expect(counts.missing.isEmpty, "paths never reached: \(counts.missing.map(\.rawValue)); \(counts)")
        print("engine fuzz slice: \(counts)")
    }
}

/// The checks can fail: a stage that mirrors every still it writes is caught.
@Suite("generative engine fuzzing: the checks catch a wrong output")
struct EngineFuzzMutantTests {
    /// The real stage, with its JPEG or PNG output mirrored left to right (and written as PNG).
    static func mirroringStage(_ data: Data, rules: AppleRules, limits: ProcessingLimits) -> StageOutcome {
        var outcome = MediaStage.engineFuzzOutcome(data, rules: rules, limits: limits)
        guard let output = outcome.data, let format = outcome.format, format == .jpeg || format == .png,
            var pixels = try? ImageCodecs.decode(output, format: format).pixels
        else { return outcome }
        let original = pixels
        let channels = pixels.layout.channels
        for y in 0..<pixels.height {
            for x in 0..<pixels.width {
                for c in 0..<channels {
                    pixels[x, y, c] = original[pixels.width - 1 - x, y, c]
                }
            }
        }
        outcome.data = try? PNGCodec.encode(pixels)
        outcome.format = .png
        outcome.outputIsInput = false
        return outcome
    }

    @Test func aMirroredOutputFailsTheChecks() {
        var mutated = 0, caught = 0
        for seed in EngineFuzzSliceTests.seeds {
            let result = EngineFuzz.run(seed: seed, maxSide: EngineFuzzSliceTests.maxSide, prepare: Self.mirroringStage)
            guard result.paths.isDisjoint(with: [.gifAnimation]), !result.steps.isEmpty else { continue }
            mutated += 1
            if !result.failures.isEmpty { caught += 1 }
        }
        // Some generated images look the same mirrored (one colour, one pixel wide): most do not.
        #expect(mutated >= 20 && caught * 3 >= mutated * 2, "\(caught) of \(mutated) mirrored outputs caught")
    }
}
