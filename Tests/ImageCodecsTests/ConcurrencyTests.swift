import Foundation
import ImageCodecs
import MediaTypes
import TestSupport
import Testing

/// Pooled TurboJPEG handles: many concurrent decodes and encodes, mixed with failures and
/// progressive encodes (which poison a TurboJPEG 2.1 handle), give the same pixels as one at a time.
@Suite struct ConcurrencyTests {
    @Test func concurrentDecodesMatchSequentialOnes() async throws {
        let inputs = try [
            "jpeg/libjpeg-turbo/testorig.jpg", "jpeg/libjpeg-turbo/testimgari.jpg", "jpeg/libjpeg-turbo/testimgp.jpg",
            "jpeg/libjpeg-turbo/testimggray.jpg", "photos/cmyk_canon_eos300d_wikimedia.jpg",
        ].map { try Corpus.data($0) }
        let broken = try Corpus.data("broken/jpeg/its_72d091e08c93c9e590360130fa35221b.jpg")
        let expected = try inputs.map { try JPEGCodec.decode($0, options: DecodeOptions()).pixels }

        let mismatches = await withTaskGroup(of: Int.self) { group in
            for round in 0..<40 {
                group.addTask {
                    let index = round % inputs.count
                    // Interleave failures and progressive encodes with the decodes.
                    _ = try? JPEGCodec.decode(broken, options: DecodeOptions())
                    if round % 3 == 0 { _ = try? JPEGCodec.encode(expected[index], progressive: true) }
                    let baseline = try? JPEGCodec.encode(expected[index], quality: 80)
                    let baselineOK =
                        baseline.map { (try? JPEGCodec.decode($0, options: DecodeOptions(strict: true))) != nil }
                        ?? false
                    let pixels = try? JPEGCodec.decode(inputs[index], options: DecodeOptions()).pixels
                    return pixels == expected[index] && baselineOK ? 0 : 1
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test func formatsWithoutACodecAreUnsupported() {
        for format in MediaFormat.allCases where !ImageCodecs.decodableFormats.contains(format) {
            #expect {
                _ = try ImageCodecs.decode(Data([0xFF, 0xD8, 0xFF]), format: format, options: DecodeOptions())
            } throws: { error in
                (error as? CodecError)?.isUnsupported == true
            }
        }
    }
}
