internal import CJPEGShim

extension JPEGCodec {
    /// What one decode shows, for comparing CJPEGShim's own Huffman decoder (huffman.c) with
    /// libjpeg's: each step's outcome and error text, the rows, libjpeg's warnings, and who
    /// decoded the Huffman data (not compared).
    package struct HuffmanCheckOutcome: Equatable, CustomStringConvertible, Sendable {
        package var steps: [String] = []
        package var rows: [UInt8] = []
        package var warningCount = 0
        package var warnings: [String] = []
        /// `pa_jpeg_own_huffman` after the decode: 0 libjpeg's decoder throughout, 1 the own
        /// decoder to the end, 2 the own decoder handed over to libjpeg's.
        package var decoder: Int32 = 0

        package static func == (a: Self, b: Self) -> Bool {
            (a.steps, a.rows, a.warningCount, a.warnings) == (b.steps, b.rows, b.warningCount, b.warnings)
        }

        package var description: String {
            "\(steps.joined(separator: ", ")), \(rows.count) row bytes, \(warningCount) warnings \(warnings), "
                + "decoder \(decoder)"
        }
    }

    /// `bytes` decoded whole at `eighths`/8 through the shim, grey, RGB or CMYK rows as the file
    /// is (or grey from any file: `gray`, where libjpeg needs no chroma coefficient), with the own
    /// Huffman decoder (`ownHuffman`, unless `ownDecoding` is off) or libjpeg's throughout; `strict`
    /// makes a warning an error.
    /// An output over `pixelLimit` pixels is not decoded (a "too large" step). For
    /// `JPEGOwnHuffmanTests` and the fuzz harness (`make fuzz`, jpeg), which decode both ways and
    /// compare.
    package static func huffmanCheck(
        _ bytes: [UInt8], eighths: Int, ownHuffman: Bool, strict: Bool = false, gray: Bool = false,
        pixelLimit: Int = 4_000_000
    ) -> HuffmanCheckOutcome {
        bytes.withUnsafeBufferPointer { data in
            var outcome = HuffmanCheckOutcome()
            guard let decoder = pa_jpeg_create(data.baseAddress, data.count, strict ? 1 : 0) else { return outcome }
            defer { pa_jpeg_destroy(decoder) }
            func step(_ name: String, _ status: Int32) -> Bool {
                outcome.steps.append(
                    status == PA_JPEG_OK ? name : "\(name) failed: \(String(cString: pa_jpeg_error_message(decoder)))")
                return status == PA_JPEG_OK
            }
            func run() {
                var info = pa_jpeg_info()
                guard step("header", pa_jpeg_read_header(decoder, &info)) else { return }
                var format: Int32 =
                    switch info.color_space {
                    case PA_JPEG_CS_GRAY: PA_JPEG_OUT_GRAY
                    case PA_JPEG_CS_CMYK, PA_JPEG_CS_YCCK: PA_JPEG_OUT_CMYK
                    default: PA_JPEG_OUT_RGB
                    }
                if gray && info.color_space == PA_JPEG_CS_YCBCR { format = PA_JPEG_OUT_GRAY }
                pa_jpeg_set_own_idct(decoder, ownDecoding ? 1 : 0)
                var output = pa_jpeg_output()
                guard step("prepare", pa_jpeg_prepare(decoder, UInt32(eighths), 8, format, 0, &output)) else { return }
                guard Int(output.width) * Int(output.height) <= pixelLimit else { return outcome.steps.append("too large") }
                pa_jpeg_set_own_huffman(decoder, ownHuffman && ownDecoding ? 1 : 0)
                guard step("start", pa_jpeg_start(decoder)) else { return }
                let stride = Int(output.width) * Int(output.components)
                var rows = [UInt8](repeating: 0, count: stride * 16)
                while pa_jpeg_output_scanline(decoder) < output.height {
                    var got: UInt32 = 0
                    let status = rows.withUnsafeMutableBufferPointer {
                        pa_jpeg_read_rows(decoder, $0.baseAddress, stride, 16, &got)
                    }
                    guard step("rows", status) else { return }
                    outcome.rows += rows[..<(Int(got) * stride)]
                    if got == 0 { break }
                }
                _ = step("finish", pa_jpeg_finish(decoder))
            }
            run()
            // After the decode, not in a `defer`: a defer runs after the returned copy is made.
            outcome.decoder = pa_jpeg_own_huffman(decoder)
            outcome.warningCount = Int(pa_jpeg_warning_count(decoder))
            outcome.warnings = (0..<pa_jpeg_warning_messages(decoder)).map {
                String(cString: pa_jpeg_warning_message(decoder, $0))
            }
            return outcome
        }
    }
}
