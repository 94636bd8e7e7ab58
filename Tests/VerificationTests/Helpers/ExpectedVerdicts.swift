import Foundation
import TestSupport

/// `TestImages/verdicts.tsv`: the verdict `pushattach verify` must give each corpus file.
enum ExpectedVerdicts {
    struct Row: Sendable {
        let verdict: String
        let errorCode: Int?
        let format: String
    }

    static let file = Corpus.testImages.appendingPathComponent("verdicts.tsv")

    /// By corpus-relative path. Lines starting with `#` and the header are skipped.
    static let rows: [String: Row] = {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [:] }
        var out: [String: Row] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("path\t") {
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard cells.count >= 4 else { continue }
            out[cells[0]] = Row(verdict: cells[1], errorCode: Int(cells[2]), format: cells[3])
        }
        return out
    }()
}
