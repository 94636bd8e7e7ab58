import Foundation
import TestSupport

/// Rows of the corpus's VERIFY.tsv (what ImageMagick said about each file), by relative path.
enum VerifyTable {
    struct Row: Sendable {
        let path: String
        /// ImageMagick's format name, e.g. "JPEG".
        let format: String
        let dims: String
        let frames: Int?
        /// "OK", "WARN", "FAIL", "DOC" or "-".
        let decode: String
    }

    static let rows: [String: Row] = {
        guard let text = try? String(contentsOf: Corpus.url("VERIFY.tsv"), encoding: .utf8) else { return [:] }
        var out: [String: Row] = [:]
        for line in text.split(separator: "\n").dropFirst() {
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard cols.count > 5 else { continue }
            out[cols[0]] = Row(path: cols[0], format: cols[3], dims: cols[4], frames: Int(cols[5]), decode: cols[6])
        }
        return out
    }()
}
