import Fetch
import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes
import PushPayloads
import Verification
import SystemSupport

/// The shared machinery of a run, and the path of one item through it.
package final class ItemPipeline: Sendable {
    package let options: ItemOptions
    package let container: Container
    let client: HTTPClient
    let hosts: HostGate
    /// Sniffing, the engine and hashing: one `MediaStage` (one engine) per thread.
    let cpu: WorkerPool<MediaStage>
    /// Local reads, atomic writes and the journal's fsyncs.
    package let io: WorkerPool<Void>
    /// The process-wide memory budget items are admitted by (`ItemOptions.admissionBudget`).
    let memory: MemoryBudget
    /// Large downloads, on disk in the container's `.spool/` (`ItemOptions.spoolBudget`).
    let spool: Spool?
    /// What is wrong with the run's own request headers, checked once (an item with headers of
    /// its own is checked with them).
    let headerProblem: String?

    /// `memory`: a budget shared with other pipelines (the library's preparer shares one across
    /// every folder it writes into); a budget of its own, of `options.admissionBudget`, when nil.
    package init(options: ItemOptions, container: Container, memory: MemoryBudget? = nil) {
        self.options = options
        self.container = container
        self.memory = memory ?? MemoryBudget(capacity: options.admissionBudget)
        // dup(2) of an open folder fails only when the process is out of descriptors; then
        // every body stays in memory (up to its cap) and the memory budget still bounds them.
        spool = try? Spool(
            descriptor: container.spool.descriptor, path: container.spool.path, budget: options.spoolBudget,
            makeDigest: Self.streamedDigest)
        var policy = Self.policy(options)
        policy.spool = spool
        client = HTTPClient(policy: policy, maxConcurrent: options.maxInFlight)
        headerProblem = options.fetch.headerProblem()
        hosts = HostGate(perHost: options.perHost)
        cpu = WorkerPool(name: "cpu", threads: options.cpuThreads) { MediaStage(options: options) }
        io = WorkerPool(name: "io", threads: 2) { () }
    }

    package func shutdown() {
        cpu.shutdown()
        io.shutdown()
        client.shutdown()
    }

    /// The fetch policy with the byte caps: the largest a download may be before its type is
    /// known, then, from the first bytes, the category's cap. Images may be larger than iOS's
    /// 10 MB (the engine shrinks them); audio and movies must already fit; bytes no format
    /// claims are held to the image cap (they will be rejected anyway).
    static func policy(_ options: ItemOptions) -> FetchPolicy {
        var policy = options.fetch
        let judged = options.policy
        policy.byteCap = judged.largestInputCap
        policy.tightenCap = { prefix in judged.inputCap(for: Sniffer.identify(prefix: prefix).category) }
        return policy
    }

    /// Downloads (or reads), processes and writes one item, the `index`th of the input. Never
    /// throws: problems are entries.
    package func prepare(_ item: InputItem, index: Int) async -> ItemResult {
        var entry = ManifestEntry(index: index, input: item.url, line: item.line, id: item.id, status: .failed)
        let clock = ContinuousClock()

        // 1. Download, holding the part of the body kept in memory (past the spool threshold
        //    the rest goes to disk, and the hold is given back as it does).
        let start = clock.now
        let download: Download
        let abandoned = ItemResult.abandoned(item, index: index)
        guard let downloadLease = try? await memory.acquire(options.fetch.spoolThreshold, for: .download) else {
            return abandoned
        }
        // Released on every way out; until then it holds the body in memory (nothing for a
        // spooled one, released as it began to spool).
        defer { downloadLease.release() }
        let fetched = await fetch(item, lease: downloadLease)
        switch fetched {
        case .success(let body): download = body
        case .failure(.abandoned): return abandoned
        case .failure(.failed(let reason, let failure)):
            entry.fail(failure, reason: reason)
            entry.timings.downloadMs = (clock.now - start).milliseconds
            return .entry(entry, end: .failed(failure))
        case .failure(.refused(let refusal, let firstBytes, let bytes)):
            entry.refuse(refusal, names: options.policy.settingNames)
            entry.bytes = bytes
            if !item.isLocal, !firstBytes.isEmpty { entry.firstBytes = Data(firstBytes.prefix(ManifestEntry.firstBytesCount)).hexString }
            entry.timings.downloadMs = (clock.now - start).milliseconds
            return .entry(entry, end: .refused(refusal))
        }
        entry.timings.downloadMs = (clock.now - start).milliseconds
        entry.bytes = download.body.count
        downloadLease.shrink(to: download.body.inMemoryCount)
        options.stageObserver?(index, .downloaded)

        // 2. Admission and 3. processing. Cancelled before, or while the engine ran: nothing is
        //    written (the spooled body, if any, goes with `download`).
        guard !Task.isCancelled,
            let outcome = await process(
                download, holding: downloadLease, item: item, index: index, timings: &entry.timings)
        else { return abandoned }
        options.stageObserver?(index, .processed)
        guard !Task.isCancelled else { return abandoned }
        entry.apply(outcome, extraWarnings: download.warnings, names: options.policy.settingNames)
        if let refusal = outcome.refusal { return .entry(entry, end: .refused(refusal)) }
        if let (failure, _) = outcome.failure { return .entry(entry, end: .failed(failure)) }
        guard let output = outcome.data, let format = outcome.format, let category = format.category else {
            preconditionFailure("a prepared outcome has its bytes and a format of a media category")
        }

        // 4. Atomic writes: the attachment (a spooled body passed through is renamed into place),
        //    then its thumbnail.
        return await store(
            output, format: format, category: category, of: outcome, download: download, item: item, index: index,
            entry: entry)
    }

    /// Writes the item's attachment and thumbnail and completes its entry; removes them again
    /// when the task was cancelled meanwhile (the caller then reports a cancellation, and the
    /// folder must be as it was).
    private func store(
        _ output: Data, format: MediaFormat, category: MediaCategory, of outcome: MediaOutcome, download: Download,
        item: InputItem, index: Int, entry: ManifestEntry
    ) async -> ItemResult {
        var entry = entry
        let clock = ContinuousClock()
        let writeStart = clock.now
        // Stable names come from the URL; bytes given in a call have none of their own (every
        // upload named `image.jpg` would share one), so they are named at random.
        let stable = options.stableNames && item.body == nil
        let name = AttachmentName(
            url: item.url, suggestedFilename: download.suggestedFilename, fileExtension: format.fileExtension,
            naming: stable ? .stable : .random)
        let spooled: SpooledFile? =
            if outcome.outputIsInput, case .file(let file) = download.body { file } else { nil }
        let written = await write(
            output, spooled: spooled, thumbnail: outcome.thumbnail, named: name, in: Container.Folder(category),
            index: index)
        entry.timings.writeMs = (clock.now - writeStart).milliseconds
        switch written {
        // A stable name may be another call's file for the same URL, written (or returned) at
        // the same time: it is never removed, and the item is reported as it finished.
        case .success(let (file, thumbFile)) where Task.isCancelled && !stable:
            let container = container
            await io.run { _ in for name in [file, thumbFile].compactMap({ $0 }) { container.removeFile(name) } }
            return .abandoned(item, index: index)
        case .success(let (file, thumbFile)):
            entry.file = file
            entry.thumbnail = thumbFile
            entry.identifier = name.identifier
            return .entry(entry, end: .prepared)
        case .failure(let error):
            if error.isFatal { return .fatal(error) }
            entry.fail(.write(error), reason: "cannot write the attachment: \(error.description(naming: options.policy.settingNames))")
            return .entry(entry, end: .failed(.write(error)))
        }
    }

    /// Admission, then the media stage: sniffs the body once (its header window), waits in line
    /// for what processing will hold in memory (from that header), then reads the image header,
    /// plans, runs the engine and hashes on the CPU threads. Nil when the run was abandoned while
    /// it waited.
    private func process(
        _ download: Download, holding bodyLease: MemoryLease, item: InputItem, index: Int,
        timings: inout ManifestEntry.Timings
    ) async -> MediaOutcome? {
        let body = download.body
        let options = options
        let claims = MediaClaims(
            mediaType: item.mediaType, contentType: download.contentType, urlExtension: Self.pathExtension(of: item.url))
        // The name the file is known by: the URL's last path component ("" when it has no
        // extension: iOS could not type it, so the written file gets one).
        let fileExtension = claims.urlExtension ?? ""
        // The sniff reads a copy of the body's header window: a JPEG's segments, a movie's first
        // megabyte, but a whole GIF or PNG. That copy is held from the memory budget while it is
        // made, as processing is, so items waiting for admission never hold more than the budget.
        let window = await io.run { _ in (try? body.data()).map(Sniffer.window(of:)) }
        guard let window else { return Self.unreadable(options.policy) }
        guard let sniffLease = try? await memory.acquire(window, for: .processing) else { return nil }
        let sniffed = await io.run { _ in
            (try? body.data()).map {
                MediaCheck.facts(
                    $0, claims: claims.typeClaims, fileExtension: fileExtension, policy: options.policy, readingImage: false)
            }
        }
        sniffLease.release()
        guard let facts = sniffed else { return Self.unreadable(options.policy) }
        let weight = Self.workingMemory(of: facts, body: body, options: options)
        // What the download lease holds of the body is counted already (at most the spool
        // threshold: a larger body in memory, given as bytes or read from a file, is not).
        guard let lease = try? await memory.acquire(max(0, weight - bodyLease.heldBytes), for: .processing) else {
            return nil
        }
        defer { lease.release() }
        let clock = ContinuousClock()
        let processStart = clock.now
        let observer = options.stageObserver
        let outcome = await cpu.run { stage in
            observer?(index, .processing)
            return stage.prepare(body, facts: facts)
        }
        timings.processMs = (clock.now - processStart).milliseconds
        return outcome
    }

    /// The outcome of a body that could not be read back from memory or its spool file.
    private static func unreadable(_ policy: AttachmentPolicy) -> MediaOutcome {
        var outcome = MediaOutcome(plan: Planner.plan(MediaFacts(bytes: []), policy: policy))
        outcome.failure = (.read, "cannot read the downloaded body back")
        return outcome
    }

    /// Writes the attachment atomically (a spooled body passed through is renamed into place
    /// instead), then its thumbnail under the same UUID, on the I/O threads: the two paths
    /// inside the container.
    private func write(
        _ output: Data, spooled: SpooledFile?, thumbnail: (data: Data, format: MediaFormat)?, named name: AttachmentName,
        in folder: Container.Folder, index: Int
    ) async -> Result<(String, String?), ContainerError> {
        let container = container
        let observer = options.stageObserver
        return await io.run { _ in
            defer { observer?(index, .written) }
            do throws(ContainerError) {
                let file: String
                if let spooled {
                    file = try container.moveSpooled(spooled.name, descriptor: spooled.descriptor, named: name, in: folder)
                    spooled.didMove()
                } else {
                    file = try container.write(output, named: name, in: folder)
                }
                var thumbFile: String?
                if let thumbnail, let uuid = UUID(uuidString: name.identifier) {
                    let thumbName = AttachmentName(
                        uuid: uuid, suggestedFilename: name.baseName, fileExtension: thumbnail.format.fileExtension)
                    do throws(ContainerError) {
                        thumbFile = try container.write(thumbnail.data, named: thumbName, in: .thumbnails)
                    } catch {
                        // The item fails: its attachment must not stay behind, named by nothing.
                        container.removeFile(file)
                        throw error
                    }
                }
                return .success((file, thumbFile))
            } catch {
                return .failure(error)
            }
        }
    }

    struct Download: Sendable {
        var body: FetchBody
        var contentType: String?
        var suggestedFilename: String?
        var warnings: [String] = []
    }

    package enum DownloadFailure: Error {
        /// The bytes could not be had: why, and the failing stage's own error when it has one.
        case failed(String, ItemFailure)
        /// The bytes are refused before they are all had (a body over the cap of its kind, or
        /// no media at all): the refusal, the first bytes that came, the size it was refused at.
        case refused(Refusal, firstBytes: [UInt8], bytes: Int)
        case abandoned
    }

    /// The SHA-256 a spooled body is hashed with as it streams, when its hash will be needed:
    /// audio, video and images the engine does not decode are passed through, and their
    /// manifest `sha256` is this one (the file is never read back). An image the engine decodes
    /// is not hashed here: most are re-encoded, and the output is hashed instead; a passthrough
    /// one is hashed from its mapped bytes (hashing every photo as it streamed took a tenth of
    /// the CPU of a 500-photo run).
    @Sendable static func streamedDigest(firstBytes: UnsafeRawBufferPointer) -> (any BodyDigest)? {
        let head = [UInt8](firstBytes.prefix(Sniffer.identifyPrefixLength))
        return ImageCodecs.decodableFormats.contains(Sniffer.identify(prefix: head)) ? nil : SpoolSHA256()
    }

    /// The bytes an item holds from the memory budget while it is processed: the engine's
    /// working memory for the size its header gives (`ImageProcessor.workingMemory`) plus the
    /// body, which the decoder reads whole (mapped, when spooled, its pages count once
    /// touched); for media the engine does not decode, twice the body (the per-file check
    /// reads a copy). A header that gives no size counts as the largest the pixel budget lets
    /// through.
    static func workingMemory(of facts: MediaFacts, body: FetchBody, options: ItemOptions) -> Int {
        let sniffed = facts.sniffed
        guard Planner.processedFormats.contains(sniffed.format), facts.headerDamage == nil else {
            let (twice, overflow) = body.count.multipliedReportingOverflow(by: 2)
            return overflow ? Int.max : twice
        }
        var (width, height) = (sniffed.width ?? 0, sniffed.height ?? 0)
        if width == 0 || height == 0 {
            let side = Int(Double(options.policy.pixelBudget).squareRoot().rounded(.up))
            (width, height) = (side, side)
        }
        // Whether the decoder keeps a whole frame of its own: a progressive JPEG (its
        // coefficients), an interlaced PNG.
        let holdsFrame: Bool? = [.jpeg, .png].contains(sniffed.format) ? sniffed.isProgressive : nil
        let animated: Bool? = sniffed.format == .webp ? sniffed.isAnimated : nil
        let engine = ImageProcessor.workingMemory(
            width: width, height: height, format: sniffed.format, limits: options.limits, holdsFrame: holdsFrame,
            animated: animated)
        let (total, overflow) = engine.addingReportingOverflow(body.count)
        return overflow ? Int.max : total
    }

    /// How much of a body is read to find its pixel size before admission: enough for a JPEG
    /// whose Exif and ICC blocks come before its frame header.
    package static let headerPrefix = 256 * 1024

    private func fetch(_ item: InputItem, lease: MemoryLease) async -> Result<Download, DownloadFailure> {
        let judged = options.policy
        if let body = item.body {
            let cap = judged.inputCap(for: Sniffer.identify(prefix: Array(body.prefix(Sniffer.identifyPrefixLength))).category)
            guard body.count <= cap else {
                let head = [UInt8](body.prefix(FetchError.firstBytesKept))
                let refusal = Planner.refusal(forBodyOver: cap, firstBytes: head, bytes: body.count, exact: true, policy: judged)
                return .failure(.refused(refusal, firstBytes: head, bytes: body.count))
            }
            return .success(Download(body: .memory(body), suggestedFilename: item.filename))
        }
        if item.isLocal { return await readLocal(item.url) }
        if Task.isCancelled { return .failure(.abandoned) }
        let problem = item.headers.isEmpty ? headerProblem : options.fetch.headerProblem(adding: item.headers)
        if let problem { return .failure(.failed(problem, .input)) }
        let host = URLComponents(string: item.url)?.host?.lowercased() ?? ""
        await hosts.acquire(host)
        let result: Result<FetchResponse, FetchError>
        do {
            result = .success(try await client.fetch(
                    item.url, headers: item.headers, deadline: item.deadline, whenSpooling: { lease.release() }))
        } catch {
            result = .failure(error)
        }
        await hosts.release(host)
        switch result {
        case .success(let response):
            var warnings: [String] = []
            if response.attempts > 1 { warnings.append("downloaded after \(response.attempts) attempts") }
            if !response.redirects.isEmpty {
                warnings.append("followed \(response.redirects.count) redirect(s) to \(response.finalURL)")
            }
            return .success(
                Download(
                    body: response.content, contentType: response.contentType,
                    suggestedFilename: response.suggestedFilename, warnings: warnings))
        case .failure(.cancelled):
            return .failure(.abandoned)
        case .failure(.tooLarge(_, let cap, let declared, let firstBytes)):
            let refusal = Planner.refusal(
                forBodyOver: cap, firstBytes: firstBytes, bytes: declared ?? cap, exact: declared != nil, policy: judged)
            return .failure(.refused(refusal, firstBytes: firstBytes, bytes: declared ?? cap))
        case .failure(let error):
            return .failure(.failed(error.description(naming: judged.settingNames), .download(error)))
        }
    }

    /// A local media file given as INPUT, mapped (not read into the heap). One over the cap of
    /// its kind is judged from its first bytes and refused, never read whole.
    private func readLocal(_ url: String) async -> Result<Download, DownloadFailure> {
        let path = URL(string: url)?.path ?? String(url.dropFirst("file://".count))
        let judged = options.policy
        return await io.run { _ in
            do {
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
                defer { try? handle.close() }
                let size = Int(try handle.seekToEnd())
                try handle.seek(toOffset: 0)
                let head = [UInt8](try handle.read(upToCount: FetchError.firstBytesKept) ?? Data())
                let cap = judged.inputCap(for: Sniffer.identify(prefix: head).category)
                if size > cap {
                    let refusal = Planner.refusal(forBodyOver: cap, firstBytes: head, bytes: size, exact: true, policy: judged)
                    return .failure(.refused(refusal, firstBytes: head, bytes: size))
                }
                let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
                return .success(Download(body: .memory(data)))
            } catch {
                return .failure(.failed("cannot read \(path): \(error.localizedDescription)", .read))
            }
        }
    }

    /// The URL path's extension, when its last component has one.
    static func pathExtension(of url: String) -> String? {
        guard let path = URLComponents(string: url)?.path, let last = path.split(separator: "/").last,
            let dot = last.lastIndex(of: "."), dot != last.startIndex
        else { return nil }
        let ext = last[last.index(after: dot)...]
        return ext.isEmpty ? nil : String(ext)
    }
}

extension ManifestEntry {
    /// The entry of an item whose media stage ended with `outcome`; reasons name settings as
    /// `names` spells them.
    package mutating func apply(_ outcome: MediaOutcome, extraWarnings: [String], names: SettingNames) {
        status = outcome.status
        action = outcome.status == .failed ? nil : outcome.plan.action.rawValue
        deviation = outcome.deviation?.rawValue
        if let refusal = outcome.refusal {
            refuse(refusal, names: names)
        } else if let (failure, why) = outcome.failure {
            fail(failure, reason: why)
        }
        if let format = outcome.format, format != .unknown {
            self.format = format.rawValue
            uti = format.uti
            category = format.category?.rawValue
        }
        if let data = outcome.data { bytes = data.count }
        firstBytes = input.hasPrefix("file://") ? nil : outcome.firstBytes.map { $0.hexString }
        width = outcome.width
        height = outcome.height
        frames = outcome.frames
        sourceWidth = outcome.sourceWidth
        sourceHeight = outcome.sourceHeight
        sha256 = outcome.sha256
        transform = outcome.steps.isEmpty ? nil : outcome.steps
        warnings = extraWarnings + outcome.warnings
    }

    /// The entry of an item whose bytes could not be had or whose file could not be written.
    package mutating func fail(_ failure: ItemFailure, reason: String) {
        status = .failed
        self.failure = failure.key
        self.reason = reason
    }

    /// The entry of an item refused for `refusal`: rejected, with its code, kind and reason.
    package mutating func refuse(_ refusal: Refusal, names: SettingNames) {
        status = .rejected
        action = Plan.Action.refuse.rawValue
        errorCode = refusal.code?.rawValue
        self.refusal = refusal.kind.rawValue
        reason = refusal.description(naming: names)
    }
}

extension Duration {
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// What `ItemPipeline.prepare` made of one item: its entry and how it ended, or why there is none.
package enum ItemResult: Sendable {
    case entry(ManifestEntry, end: ItemEnd)
    /// A later item naming a URL already prepared in this run: it shares the first one's files.
    case reused(ManifestEntry)
    /// Interrupted before it finished: no entry, `--resume` redoes it.
    case abandoned(InputItem, index: Int)
    case fatal(ContainerError)
}
