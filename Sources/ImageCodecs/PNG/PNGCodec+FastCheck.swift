import Foundation

extension PNGCodec {
    /// What one decode shows, for comparing CPNGShim's own reader (fast.c) with libpng's: the
    /// outcome (the rows, or the error), the warnings, and who read the rows (not compared).
    ///
    /// A decode that fails keeps no rows here: the caller gets the error and nothing else either
    /// way, and the rows before it may differ in number, since ISA-L inflates the first bytes of
    /// some damaged deflate blocks whose header zlib refuses outright (libpng then fails at an
    /// earlier row, with the same message).
    package struct FastCheckOutcome: Equatable, CustomStringConvertible, Sendable {
        package var outcome = ""
        package var rows: [UInt8] = []
        package var warnings: [String] = []
        /// `PNGRowDecoder.fastState` after the decode.
        package var reader: Int32 = 0

        package static func == (a: Self, b: Self) -> Bool {
            (a.outcome, a.rows, a.warnings) == (b.outcome, b.rows, b.warnings)
        }

        package var description: String {
            "\(outcome), \(rows.count) row bytes, warnings \(warnings), reader \(reader)"
        }
    }

    /// `bytes` decoded whole, row by row in bands of 7 rows (so the own reader's hand-over can
    /// fall inside a call), with the own reader (`fast`) or libpng throughout. An image over
    /// `pixelLimit` pixels is not decoded (a "too large" outcome). For `PNGFastReaderTests` and the
    /// fuzz harness (`make fuzz`, png), which decode both ways and compare.
    package static func fastCheck(_ bytes: [UInt8], fast: Bool, pixelLimit: Int = 4_000_000) -> FastCheckOutcome {
        var result = FastCheckOutcome()
        bytes.withUnsafeBytes { raw in
            let decoder: PNGRowDecoder
            do { decoder = try PNGRowDecoder(raw, pixelBudget: pixelLimit, fast: fast) } catch {
                result.outcome = "open failed: \(error)"
                return
            }
            let rowBytes = decoder.width * decoder.layout.channels
            var band = [UInt8](repeating: 0, count: rowBytes * 7)
            do {
                while decoder.rowsRead < decoder.height {
                    let got = try band.withUnsafeMutableBufferPointer {
                        try decoder.readRows(into: $0.baseAddress!, stride: rowBytes, count: 7)
                    }
                    result.rows += band[..<(got * rowBytes)]
                    if got == 0 { break }
                }
                result.outcome = "\(decoder.width)x\(decoder.height) \(decoder.layout)"
            } catch {
                result.outcome = "rows failed: \(error)"
                result.rows = []
            }
            result.warnings = decoder.warnings
            result.reader = decoder.fastState
        }
        return result
    }
}
