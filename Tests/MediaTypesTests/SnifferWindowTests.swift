import Foundation
import TestSupport
import Testing

@testable import MediaTypes

/// How much of a file sniffing needs: a JPEG up to its start of frame, a movie its header
/// window, other images all of it; the sniff of that window is the sniff of the whole file.
@Suite("Sniffer: the window of a file that sniffing needs")
struct SnifferWindowTests {
    @Test(arguments: [
        "small-320x240.jpg", "photo-1600x1200.jpg", "opaque-300x200.png", "animated-120x90.gif", "tone-1s.wav",
    ])
    func theWindowSniffsAsTheWholeFile(name: String) throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent(name))
        let window = Sniffer.window(of: data)
        #expect(window > 0 && window <= data.count)
        #expect(try Sniffer.sniff([UInt8](data.prefix(window))) == Sniffer.sniff(data))
    }

    @Test func aJPEGIsReadToItsStartOfFrameOnly() throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent("photo-1600x1200.jpg"))
        #expect(Sniffer.window(of: data) < data.count / 10)
    }

    @Test func aMovieIsJudgedByItsHeaderWindow() {
        // An MPEG program stream, 3 MB: its header window is the first megabyte.
        let movie = Data([0x00, 0x00, 0x01, 0xBA]) + Data(count: 3_000_000)
        #expect(Sniffer.window(of: movie) == 1 << 20)
        #expect(Sniffer.window(of: Data("not media".utf8)) == 9)
    }
}
