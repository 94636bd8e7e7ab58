import Foundation
import MediaTypes
import TestSupport
import Testing

@testable import ImageCodecs
@testable import ImageEngine

/// A source that fails at row `failAt` (after handing out exactly `failAt` rows), and reports
/// a profile, warnings and damage once its last row is read.
private final class FailingRowSource: ImageRowSource {
    let pixels: PixelBuffer
    let failAt: Int?
    private(set) var rowsRead = 0
    /// The thread each read came from (the producer's, never the test's).
    private(set) var readThreads = Set<UInt>()

    /// The first read that starts at this row or later waits at `hold` until the test lets it
    /// go (nil: no read waits), so the test knows the producer is mid-read.
    let holdFrom: Int?
    /// `entered`: the held read has started; `open`: it may go on; `log`: what ended, in order.
    let hold = Watched(Hold())
    struct Hold: Sendable {
        var entered = false
        var open = false
        var log: [String] = []
    }
    /// Set by the test once the wrapper's `finish()` has returned: no read may start after it,
    /// nor be under way.
    private let state = NSLock()
    private var closed = false
    private var inFlight = 0
    private var readsAfterClose = 0

    init(_ pixels: PixelBuffer, failAt: Int? = nil, holdFrom: Int? = nil) {
        self.pixels = pixels
        self.failAt = failAt
        self.holdFrom = holdFrom
    }

    /// Marks the source closed and returns how many reads were under way at that moment.
    func close() -> Int { state.withLock { closed = true; return inFlight } }
    /// Reads that started after `close()`.
    var lateReads: Int { state.withLock { readsAfterClose } }

    var width: Int { pixels.width }
    var height: Int { pixels.height }
    var layout: PixelBuffer.Layout { pixels.layout }
    var sourceWidth: Int { pixels.width }
    var sourceHeight: Int { pixels.height }
    var iccProfile: [UInt8]? { rowsRead == height ? [1, 2, 3] : nil }
    var warnings: [String] { rowsRead == height ? ["late warning"] : [] }
    var damage: [String] { rowsRead == height ? ["late damage"] : [] }
    var workingMemory: Int { 0 }

    func readRows(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws(CodecError) -> Int {
        state.withLock { inFlight += 1; if closed { readsAfterClose += 1 } }
        defer { state.withLock { inFlight -= 1 } }
        let held = holdFrom.map { rowsRead >= $0 && !hold.value.entered } ?? false
        if held {
            hold.update { $0.entered = true }
            _ = hold.waitBlocking { $0.open }
        }
        defer { if held { hold.update { $0.log.append("held read returned") } } }
        readThreads.insert(UInt(pthread_self()))
        let rowBytes = width * layout.channels
        var done = 0
        while done < count, rowsRead < height {
            if rowsRead == failAt { throw .corrupt(codec: "test", message: "bad row \(rowsRead)") }
            pixels.withUnsafeBytes {
                (buffer + done * stride).update(from: $0.baseAddress! + rowsRead * pixels.stride, count: rowBytes)
            }
            rowsRead += 1
            done += 1
        }
        return done
    }
}

/// Reads every row of `source` in reads of `chunk` rows (the last ones shorter).
private func readAll(_ source: any ImageRowSource, chunk: Int) throws -> (PixelBuffer, calls: Int) {
    var out = PixelBuffer(width: source.width, height: source.height, layout: source.layout)
    let stride = out.stride
    var row = 0, calls = 0
    try out.withUnsafeMutableBytes { bytes in
        while row < source.height {
            let got = try source.readRows(
                into: bytes.baseAddress! + row * stride, stride: stride, count: min(chunk, source.height - row))
            calls += 1
            #expect(got > 0)
            if got == 0 { break }
            row += got
        }
        #expect(try source.readRows(into: bytes.baseAddress!, stride: stride, count: 1) == 0)
    }
    return (out, calls)
}

@Suite(.serialized, .tags(.slow), .notInFastTier) struct PrefetchingRowSourceTests {
    @Test(arguments: [1, 31, 32, 33, 1000])
    func rowsAreTheInnerSourcesRows(height: Int) throws {
        let pixels = Synthetic.make(.noise, width: 37, height: height, layout: .rgb, seed: UInt64(height))
        for chunk in [1, 7, height] {
            let before = PrefetchingRowSource.liveProducers
            let source = PrefetchingRowSource(ChunkedRowSource(pixels))
            let (out, _) = try readAll(source, chunk: chunk)
            source.finish()
            #expect(out.bytes == pixels.bytes, "height \(height) chunk \(chunk)")
            #expect(source.rowsRead == height)
            #expect(PrefetchingRowSource.liveProducers == before)
        }
    }

    @Test func memoryIsTheRingPlusTheInnerSources() {
        let source = PrefetchingRowSource(
            GeneratedRowSource(width: 100, height: 500, layout: .rgba), blockRows: 32, blockCount: 3)
        defer { source.finish() }
        #expect(source.workingMemory == 3 * 32 * 100 * 4)
    }

    @Test(arguments: [0, 1, 31, 32, 33, 64, 99])
    func anErrorComesAfterExactlyTheRowsBeforeIt(failAt: Int) throws {
        let pixels = Synthetic.make(.gradient, width: 13, height: 100, layout: .rgba)
        let before = PrefetchingRowSource.liveProducers
        let inner = FailingRowSource(pixels, failAt: failAt)
        let source = PrefetchingRowSource(inner)
        var row = [UInt8](repeating: 0, count: 13 * 4)
        var read = 0
        var failure: CodecError?
        while true {
            do {
                let got = try row.withUnsafeMutableBufferPointer {
                    try source.readRows(into: $0.baseAddress!, stride: $0.count, count: 1)
                }
                if got == 0 { break }
                #expect(Array(row) == Array(pixels.bytes[(read * pixels.stride)..<(read * pixels.stride + 52)]))
                read += 1
            } catch let error as CodecError {
                failure = error
                break
            } catch {
                Issue.record("\(error)")
                break
            }
        }
        #expect(read == failAt)
        #expect(failure != nil)
        source.finish()
        #expect(PrefetchingRowSource.liveProducers == before)
        #expect(inner.readThreads.count == 1)
        #expect(!inner.readThreads.contains(UInt(pthread_self())))
    }

    /// The producer is held mid-read (a read of a block past the rows the consumer takes) when
    /// `finish()` is called: `finish()` returns only after that read has returned, and then no
    /// read is under way and the producer is gone.
    @Test(arguments: [0, 1, 50, 500])
    func anEarlyStopJoinsTheProducer(stopAfter: Int) throws {
        let before = PrefetchingRowSource.liveProducers
        // The producer reads a row at a time and hands the consumer whole blocks of 32 rows: the
        // held read is the first row of the first block the consumer does not take, so the
        // consumer's rows never wait for it.
        let firstUntaken = (stopAfter + 31) / 32 * 32
        let inner = FailingRowSource(Synthetic.make(.noise, width: 64, height: 1000, layout: .gray), holdFrom: firstUntaken)
        let source = PrefetchingRowSource(inner)
        var row = [UInt8](repeating: 0, count: 64)
        for _ in 0..<stopAfter {
            _ = try row.withUnsafeMutableBufferPointer {
                try source.readRows(into: $0.baseAddress!, stride: 64, count: 1)
            }
        }
        #expect(inner.hold.waitBlocking { $0.entered } != nil, "the producer reads ahead")
        let hold = inner.hold
        let finisher = TestThread {
            source.finish()
            hold.update { $0.log.append("finish returned") }
        }
        finisher.start()
        inner.hold.update { $0.open = true }
        finisher.join()
        #expect(inner.hold.value.log == ["held read returned", "finish returned"])
        #expect(inner.close() == 0, "a read was under way after finish() returned")
        #expect(PrefetchingRowSource.liveProducers == before)
        // The producer stopped at most a ring (3 blocks) and a block ahead of the consumer.
        #expect(inner.rowsRead <= stopAfter + 4 * 32)
        #expect(inner.lateReads == 0)
    }

    @Test func anEarlyStopInStreamJoinsTheProducer() throws {
        let pixels = Synthetic.make(.noise, width: 3000, height: 3000, layout: .rgb)
        let input = EncodedInput(try PNGCodec.encode(pixels, compression: .fast), format: .png)
        let before = PrefetchingRowSource.liveProducers
        var wrapped = false
        var failed = false
        do {
            _ = try ImageProcessor.stream(input, options: DecodeOptions()) { source throws(CodecError) in
                wrapped = source is PrefetchingRowSource
                var row = [UInt8](repeating: 0, count: 9000)
                let got = row.withUnsafeMutableBufferPointer { buffer -> Result<Int, CodecError> in
                    do throws(CodecError) {
                        return .success(try source.readRows(into: buffer.baseAddress!, stride: 9000, count: 1))
                    } catch { return .failure(error) }
                }
                _ = try got.get()
                throw CodecError.corrupt(codec: "test", message: "consumer stops")
            }
        } catch { failed = true }
        #expect(failed)
        #expect(wrapped)
        #expect(PrefetchingRowSource.liveProducers == before)
    }

    @Test func warningsDamageAndProfileAreCarriedOver() throws {
        let inner = FailingRowSource(Synthetic.make(.gradient, width: 9, height: 70, layout: .rgb))
        let source = PrefetchingRowSource(inner)
        // (No check before the rows: the producer may already have read them all, and with
        // them the profile the inner source gives only at its end.)
        _ = try readAll(source, chunk: 7)
        source.finish()
        #expect(source.warnings == ["late warning"])
        #expect(source.damage == ["late damage"])
        #expect(source.iccProfile == [1, 2, 3])
        #expect(source.width == 9 && source.height == 70 && source.layout == .rgb)
    }

    /// The resized output is the same with and without decoding ahead: corpus photos (every
    /// one wrapped, whatever its size) and a 3000×3000 PNG through `stream` (9 MP: ahead).
    @Test func resizedOutputIsIdentical() throws {
        var inputs: [(String, EncodedInput)] = []
        for file in Corpus.files(in: "photos").prefix(4) {
            let data = try Data(contentsOf: file)
            let format: MediaFormat = file.pathExtension.lowercased() == "png" ? .png : .jpeg
            guard ["jpg", "jpeg", "png"].contains(file.pathExtension.lowercased()) else { continue }
            inputs.append((file.lastPathComponent, EncodedInput(data, format: format)))
        }
        let big = Synthetic.make(.gradient, width: 3000, height: 3000, layout: .rgba)
        inputs.append(("3000x3000.png", EncodedInput(try PNGCodec.encode(big, compression: .fast), format: .png)))
        #expect(inputs.count >= 3)
        let resizer = RowResizer()
        for (name, input) in inputs {
            func run(ahead: Bool, wrapAll: Bool) throws -> RowResizer.Output {
                try ImageProcessor.stream(input, options: DecodeOptions(), decodeAhead: ahead) {
                    source throws(CodecError) in
                    let size = Size(width: max(1, source.width / 3), height: max(1, source.height / 3))
                    if wrapAll && !(source is PrefetchingRowSource) {
                        let wrapped = PrefetchingRowSource(source)
                        defer { wrapped.finish() }
                        return try resizer.resize(wrapped, to: size)
                    }
                    return try resizer.resize(source, to: size)
                }.value
            }
            let plain = try run(ahead: false, wrapAll: false)
            let ahead = try run(ahead: true, wrapAll: true)
            #expect(plain.pixels.bytes == ahead.pixels.bytes, "\(name)")
            #expect(plain.opaque == ahead.opaque, "\(name)")
        }
        #expect(PrefetchingRowSource.liveProducers == 0)
    }

    @Test func bigPNGProcessesAsBefore() throws {
        // process (decode ahead on its 9 MP decode) against the same decode streamed on one thread.
        let big = Synthetic.make(.edges, width: 3000, height: 3000, layout: .rgb)
        let data = try PNGCodec.encode(big, compression: .fast)
        let sniffed = try Sniffer.sniff(data)
        let result = try ImageProcessor().process(data, sniffed: sniffed, limits: ProcessingLimits())
        #expect(result.output.width == 2048)
        #expect(PrefetchingRowSource.liveProducers == 0)
        var oneThread = ProcessingLimits()
        oneThread.decodeAhead = false
        let single = try ImageProcessor().process(data, sniffed: sniffed, limits: oneThread)
        #expect(single.output.data == result.output.data)
    }

    /// `process` on the 16 MP corpus photo (decoded at 7/8, 12 MP, for a 4000-px output, so
    /// ahead): the same JPEG bytes, output and thumbnail, with and without the second thread.
    @Test func processIsIdenticalWithAndWithoutDecodeAhead() throws {
        let data = try Corpus.data("photos/kodak_pixpro_fz201.jpg")
        let sniffed = try Sniffer.sniff(data)
        var ahead = ProcessingLimits(maxLongSide: 4000, decodedBudget: 100_000_000, thumbnailSize: 256)
        ahead.decodeAhead = true
        var single = ahead
        single.decodeAhead = false
        let a = try ImageProcessor().process(data, sniffed: sniffed, limits: ahead)
        let b = try ImageProcessor().process(data, sniffed: sniffed, limits: single)
        #expect(!a.passthrough)
        #expect(a.steps.contains { $0.hasPrefix("decoded at 7/8") }, "\(a.steps)")
        #expect(a.output.data == b.output.data)
        #expect(a.thumbnail?.data == b.thumbnail?.data)
        #expect(a.steps == b.steps)
        #expect(PrefetchingRowSource.liveProducers == 0)
    }
}
