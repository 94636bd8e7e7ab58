import Foundation
import TestSupport
import Testing

@testable import MediaTypes

@Suite("Files ImageMagick decodes")
struct DecodableCorpusTests {
    /// ImageMagick formats we do not sniff (see SmallCorpusTests for what they come out as).
    static let notOurs: Set<String> = ["ICC", "JP2", "MNG", "PBM", "TGA", "XBM"]

    static let decodable: [String] = VerifyTable.rows.values
        .filter { ["OK", "WARN"].contains($0.decode) && $0.dims.contains("x") && !notOurs.contains($0.format) }
        .map(\.path).sorted()

    @Test("every image ImageMagick decodes sniffs without throwing, with ImageMagick's size")
    func sizesMatch() throws {
        #expect(Self.decodable.count > (Corpus.isExternal ? 400 : 300))
        var failures: [String] = []
        for path in Self.decodable {
            let row = try #require(VerifyTable.rows[path])
            do {
                let sniffed = try Sniffer.sniff(corpusBytes(path))
                let size = "\(sniffed.width ?? 0)x\(sniffed.height ?? 0)"
                if sniffed.width != nil, size != row.dims {
                    failures.append("\(path): \(size) vs \(row.dims) \(sniffed.format)")
                }
                if sniffed.format == .unknown { failures.append("\(path): unknown (\(row.format))") }
            } catch {
                failures.append("\(path): \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count): \(failures.joined(separator: "\n"))")
    }
}
