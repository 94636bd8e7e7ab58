import Foundation
import TestSupport
import Testing

/// Shrink-on-load, shown in a child process: a 256 px attachment of the 16 MP photo never
/// holds a full-resolution buffer (4608 x 3456 x 3 = 48 MB as RGB, 64 MB as RGBA).
/// Skipped under sanitizers (`make test-asan` sets PUSHATTACH_SANITIZER): their shadow memory
/// and quarantine make RSS figures meaningless.
@Suite(
    "engine memory", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["PUSHATTACH_SANITIZER"] == nil, "RSS is meaningless under a sanitizer"), .tags(.slow), .notInFastTier)
struct EngineMemoryTests {
    static let photo = Corpus.url("photos/kodak_pixpro_fz201.jpg")

    func prepare(_ extra: [String]) throws -> (status: Int32, peakRSS: Int) {
        let container = FileManager.default.temporaryDirectory.appendingPathComponent("pa-mem-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: container) }
        let (result, peak) = try ProcessRunner.runMeasuringMemory(
            "pushattach", ["prepare", Self.photo.path, "--container", container.path] + extra)
        return (result.status, peak)
    }

    @Test func thumbnailOfThe16MPPhotoStaysFarBelowAFullResolutionBuffer() throws {
        let small = try prepare(["--max-long-side", "256"])
        #expect(small.status == 0)
        #expect(small.peakRSS > 0)
        #expect(small.peakRSS < 64_000_000, "peak RSS \(small.peakRSS) bytes")
        // The same measurement does see frames: a large output (only the 24 MB decoded budget
        // limits it: about 2830 x 2120, 18 MB as RGB) costs its output frame more. Rows stream
        // from the decoder into that frame, so it costs little else: the engine before the
        // streaming one also held the 1/2-scale decode (12 MB) and a 16-bit intermediate
        // (another 24 MB), over 50 MB in all.
        let full = try prepare(["--max-long-side", "8000"])
        #expect(full.status == 0)
        #expect(full.peakRSS > small.peakRSS + 8_000_000, "full \(full.peakRSS) vs small \(small.peakRSS)")
        #expect(full.peakRSS < small.peakRSS + 40_000_000, "full \(full.peakRSS) vs small \(small.peakRSS)")
    }
}
