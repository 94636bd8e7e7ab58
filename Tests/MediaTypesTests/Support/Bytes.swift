import Foundation
import TestSupport

/// Corpus bytes for tests.
func corpusBytes(_ relative: String) throws -> [UInt8] {
    [UInt8](try Corpus.data(relative))
}

/// A path relative to the corpus root.
func corpusRelative(_ url: URL) -> String {
    Corpus.relativePath(url)
}
