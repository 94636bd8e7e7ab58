import Foundation
import MediaTypes

/// Runs the configured workloads and collects one `BenchResult` per workload, format and
/// thread count.
///
///     let report = BenchRunner(config).run()
///     print(report.table())
public struct BenchRunner {
    public let configuration: BenchConfiguration

    public init(_ configuration: BenchConfiguration) { self.configuration = configuration }

    public func run(progress: (String) -> Void = { _ in }) -> BenchReport {
        let folder = configuration.resolvedFolder() ?? URL(fileURLWithPath: BenchConfiguration.repositoryPhotos)
        let set = ImageSet.load(folder: folder)
        let baseline = Double(Machine.peakRSSBytes) / 1_000_000
        let cores = Machine.cores
        let threadCounts = configuration.threads.map { [$0] } ?? (cores > 1 ? [1, cores] : [1])
        var results: [BenchResult] = []
        for workload in configuration.workloads {
            for (label, images) in cases(workload, set) where !images.isEmpty {
                for threads in threadCounts {
                    progress("\(workload.title) \(label) \(images.count) images, \(threads) thread(s)")
                    results.append(measure(workload, label: label, images: images, threads: threads))
                }
            }
        }
        return BenchReport(
            folder: folder.path, images: set.images.count, rounds: configuration.rounds, machine: Machine.describe(),
            inputMegabytes: Double(set.images.reduce(0) { $0 + $1.data.count }) / 1_000_000,
            baselineRSSMegabytes: baseline, results: results)
    }

    /// The image groups a workload runs over: every image for W1/W2, one group per format for W3,
    /// the folder's PNGs for W4.
    private func cases(_ workload: Workload, _ set: ImageSet) -> [(String, [ImageSet.Image])] {
        switch workload {
        case .w1, .w2, .d1, .d2: return [("all", set.images)]
        case .w4: return [(MediaFormat.png.rawValue, set.only(.png))]
        case .w5: return [(MediaFormat.heic.rawValue, set.only(.heic)), (MediaFormat.avif.rawValue, set.only(.avif))]
        case .a1:
            // The folder's animated WebPs and GIFs (an oversized GIF is scaled down, one within the
            // limits passes through); a folder with neither borrows the animated WebPs as W3 does.
            var images = set.images.filter(Self.isAnimatedWebP)
            let gifs = ImageSet.load(folder: set.folder, formats: [.gif]).images
            if images.isEmpty && gifs.isEmpty {
                images = Self.otherFormats(besides: set.folder).images.filter(Self.isAnimatedWebP)
            }
            return [("webp->gif", images), ("gif", gifs)]
        case .w3:
            var extra: ImageSet?
            return [MediaFormat.jpeg, .png, .webp].map { format in
                var images = set.only(format)
                if images.isEmpty {
                    // The photo folder is JPEG only: borrow PNG and WebP from the fixtures and the corpus.
                    if extra == nil { extra = Self.otherFormats(besides: set.folder) }
                    images = extra?.only(format) ?? []
                }
                return (format.rawValue, images)
            }
        }
    }

    private static func isAnimatedWebP(_ image: ImageSet.Image) -> Bool {
        image.sniffed.format == .webp && image.sniffed.isAnimated
    }

    private static func otherFormats(besides folder: URL) -> ImageSet {
        let corpus = folder.deletingLastPathComponent()
        var images: [ImageSet.Image] = []
        for url in [
            URL(fileURLWithPath: "TestImages"), corpus.appendingPathComponent("webp"),
            corpus.appendingPathComponent("pngsuite"),
        ] where url.standardizedFileURL != folder.standardizedFileURL {
            images += ImageSet.load(folder: url).images
        }
        return ImageSet(folder: folder, images: images)
    }

    private func makeWorker(_ workload: Workload) -> any BenchWorker {
        switch workload {
        case .w1: FitWorker(box: 256, quality: 80, validateAllScans: configuration.validateAllScans)
        case .w2, .w4, .w5, .a1: FitWorker(box: 2048, quality: 85, validateAllScans: configuration.validateAllScans)
        case .w3: DecodeWorker(box: nil, validateAllScans: true)
        case .d1: DecodeWorker(box: 256, validateAllScans: configuration.validateAllScans)
        case .d2: DecodeWorker(box: 2048, validateAllScans: configuration.validateAllScans)
        }
    }

    private func measure(_ workload: Workload, label: String, images all: [ImageSet.Image], threads: Int) -> BenchResult
    {
        let workers = (0..<threads).map { _ in WorkerBox(makeWorker(workload)) }
        // Warm-up round, single file at a time: also drops the images the path refuses.
        var images: [ImageSet.Image] = []
        var failures: [String] = []
        for image in all {
            do {
                let output = try workers[0].worker.run(image)
                images.append(image)
                if let folder = configuration.outputFolder, let output, threads == 1 {
                    // W4/W5 name a PNG output .png, A1 a GIF .gif; W1/W2 names stay NAME.w1.jpg whatever the output.
                    let png = [.w4, .w5].contains(workload) && output.starts(with: [0x89, 0x50, 0x4E, 0x47])
                    let gif = workload == .a1 && output.starts(with: Array("GIF8".utf8))
                    let name =
                        image.name.replacingOccurrences(of: "/", with: "_")
                        + ".\(workload.rawValue).\(png ? "png" : gif ? "gif" : "jpg")"
                    try? output.write(to: folder.appendingPathComponent(name))
                }
            } catch {
                failures.append("\(image.name): \(error)")
            }
        }
        if threads > 1 { _ = Self.round(images, workers) }
        var seconds: [Double] = []
        var latencies: [Double] = []
        for _ in 0..<configuration.rounds {
            let round = Self.round(images, workers)
            seconds.append(round.seconds)
            latencies += round.latencies
        }
        let megapixels = images.reduce(0) { $0 + $1.megapixels }
        let median = Stats.median(seconds)
        return BenchResult(
            workload: workload.rawValue, format: label, threads: threads, images: images.count,
            imagesPerSecond: median > 0 ? Double(images.count) / median : 0,
            megapixelsPerSecond: median > 0 ? megapixels / median : 0,
            p50Milliseconds: Stats.percentile(latencies, 0.50) * 1000,
            p95Milliseconds: Stats.percentile(latencies, 0.95) * 1000,
            peakRSSMegabytes: Double(Machine.peakRSSBytes) / 1_000_000, load: Machine.loadAverage(),
            failures: failures)
    }

    /// One pass over `images` with one thread per worker pulling the next index.
    private static func round(_ images: [ImageSet.Image], _ workers: [WorkerBox]) -> (
        seconds: Double, latencies: [Double]
    ) {
        let queue = WorkQueue(count: images.count, threads: workers.count)
        let start = Machine.now()
        if workers.count == 1 {
            queue.drain(images, workers[0], slot: 0)
        } else {
            let done = DispatchGroup()
            for (slot, worker) in workers.enumerated() {
                done.enter()
                let thread = Thread {
                    queue.drain(images, worker, slot: slot)
                    done.leave()
                }
                thread.stackSize = 4 << 20
                thread.start()
            }
            done.wait()
        }
        return (Machine.now() - start, queue.latencies.flatMap { $0 })
    }
}

/// A worker handed to exactly one thread at a time.
final class WorkerBox: @unchecked Sendable {
    let worker: any BenchWorker
    init(_ worker: any BenchWorker) { self.worker = worker }
}

/// The shared "next image" index plus each thread's own latency list.
final class WorkQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private let count: Int
    /// One array per thread slot; each slot is written only by its own thread.
    var latencies: [[Double]]

    init(count: Int, threads: Int) {
        self.count = count
        latencies = Array(repeating: [], count: threads)
    }

    private func take() -> Int? {
        lock.withLock {
            guard next < count else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func drain(_ images: [ImageSet.Image], _ box: WorkerBox, slot: Int) {
        var mine: [Double] = []
        while let index = take() {
            let start = Machine.now()
            _ = try? box.worker.run(images[index])
            mine.append(Machine.now() - start)
        }
        lock.withLock { latencies[slot] = mine }
    }
}

enum Stats {
    static func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

    /// Nearest-rank percentile (0 for an empty list).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(sorted.count - 1, max(0, rank))]
    }
}
