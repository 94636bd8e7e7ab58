import Foundation
import ImageCodecs
import TestSupport
import Testing

/// A corpus file as a test argument: prints as its corpus-relative path.
struct CorpusFile: CustomTestStringConvertible, Sendable {
    let url: URL
    var testDescription: String {
        Corpus.relativePath(url)
    }
    var data: Data { get throws { try Data(contentsOf: url) } }
    var name: String { url.lastPathComponent }

    static func all(in folder: String, extensions: Set<String>? = nil) -> [CorpusFile] {
        Corpus.files(in: folder, extensions: extensions).map(CorpusFile.init)
    }
}

enum Pixels {
    /// Mean absolute difference per channel value; nil when sizes or layouts differ.
    static func meanAbsoluteError(_ a: PixelBuffer, _ b: PixelBuffer) -> Double? {
        guard a.width == b.width, a.height == b.height, a.layout == b.layout else { return nil }
        var total = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                for c in 0..<a.layout.channels { total += abs(Int(a[x, y, c]) - Int(b[x, y, c])) }
            }
        }
        return Double(total) / Double(max(1, a.pixelCount * a.layout.channels))
    }

    /// A deterministic test pattern with gradients and edges.
    static func pattern(width: Int, height: Int, layout: PixelBuffer.Layout) -> PixelBuffer {
        var buffer = PixelBuffer(width: width, height: height, layout: layout)
        for y in 0..<height {
            for x in 0..<width {
                let values = [
                    x * 255 / max(1, width - 1), y * 255 / max(1, height - 1), ((x / 8 + y / 8) % 2) * 200 + 20,
                    128 + (x + y) % 128,
                ]
                for c in 0..<layout.channels { buffer[x, y, c] = UInt8(values[c]) }
            }
        }
        return buffer
    }
}

extension CodecError {
    var isCorrupt: Bool { if case .corrupt = self { true } else { false } }
    var isUnsupported: Bool { if case .unsupported = self { true } else { false } }
    var isBudget: Bool { if case .pixelBudgetExceeded = self { true } else { false } }
}
