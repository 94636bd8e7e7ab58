import Fetch
import Foundation
import ImageEngine
import MediaTypes
import SystemSupport

extension AttachmentPreparer {
    /// Everything an `AttachmentPreparer` decides by: downloads, the engine's limits, Apple's
    /// rules, naming, memory and disk budgets, strictness.
    ///
    ///     var configuration = AttachmentPreparer.Configuration.default
    ///     configuration.fetch.allowPrivateNetworks = false
    ///     configuration.thumbnailSize = 256
    ///     let preparer = AttachmentPreparer(configuration: configuration)
    public struct Configuration: Sendable {
        /// The defaults: iOS's caps, a 2048 px long side, JPEG quality 85, no thumbnail,
        /// random names, a 256 MB memory budget, a 2 GB spool budget, private networks refused.
        public static var `default`: Configuration { Configuration() }

        /// Downloads: redirects, private networks, allowed hosts, deadline, retries, the spool
        /// threshold. The byte caps are set from `rules` and `imageDownloadCap`.
        public var fetch = FetchPolicy()
        /// The engine's limits: long side, quality, and the policy (`policy` is the same value).
        /// `thumbnailSize` below takes precedence over its copy here. Setting `limits` whole sets
        /// the policy too: give it one (`ProcessingLimits(maxLongSide: 1024, policy: policy)`), or
        /// set `policy` after it.
        public var limits = ProcessingLimits()
        /// How every file is judged: Apple's caps and formats (for every kind of media and the
        /// final check), the pixel budget, strictness, damaged images, and how reasons name
        /// settings. The one policy, kept in `limits.policy`; `AttachmentVerifier(policy:)`
        /// takes the same value, so verifying and preparing agree.
        ///
        ///     configuration.policy.acceptDamaged = true
        ///     configuration.policy.rules.imageByteCap = 5_000_000
        public var policy: AttachmentPolicy {
            get { limits.policy }
            set { limits.policy = newValue }
        }
        /// Name-based UUIDs of the URL (version 5) instead of random ones: the same URL gets the
        /// same file name every time, and a second call replaces the first call's file.
        public var stableNames = false
        /// Side of the square box a thumbnail fits in (written into `Thumbnails/`); nil for none.
        public var thumbnailSize: Int? = nil
        /// The admission budget: the memory all calls of one preparer may hold at once, in
        /// bytes (each its download's in-memory part, then its decode and body); items wait in
        /// line for it, and one needing more than all of it runs alone. Not to be confused with
        /// the per-image decoded budget, `rules.decodedBudget` and `limits.decodedBudget`.
        public var admissionBudget = 256_000_000

        /// The disk the spooled downloads of one preparer may hold at once in one folder, in bytes.
        public var spoolBudget = 2_000_000_000
        /// The largest image download, in bytes (`policy.imageInputCap`): an image over it is
        /// refused as too large (`.tooLarge`) as soon as its size shows, never read whole. Over
        /// iOS's 10 MB is fine (the engine shrinks such images); under it is honoured too (a
        /// service that wants nothing over 5 MB sets 5 MB).
        public var imageDownloadCap: Int {
            get { policy.imageInputCap }
            set { policy.imageInputCap = newValue }
        }
        /// Downloads at once per folder, and items in flight at once in a batch.
        public var maxInFlight = 16
        /// Downloads at once from one host.
        public var perHost = 6
        /// Threads for decoding, resizing, encoding and hashing (per folder in use).
        public var cpuThreads = max(1, ProcessInfo.processInfo.activeProcessorCount)
        /// The longest one call may take, everything included: the download's attempts and the
        /// waits between them (`fetch.deadline` bounds one attempt, `fetch.maxRetries` their
        /// number), waits for memory and connection slots, processing and writing. Default 25 s.
        /// Past it the call throws `AttachmentError.Kind.downloadFailed` with
        /// `FetchError.timedOut`, whose `retryAfter` keeps the origin's last `Retry-After`: a retry
        /// that would start after the deadline is not waited for, so a 503 asking for 3 s under a
        /// 4 s deadline ends the call at once with that advice (`AttachmentProblem` answers 504
        /// with `Retry-After: 3`).
        ///
        ///     configuration.callDeadline = .seconds(4)   // an extension-facing request's budget
        public var callDeadline: Duration = .seconds(25)
        /// Told how each call ended, with where its time went (`AttachmentEvent`): route it into
        /// your logging and metrics. Called once per call, every call, those refused before any
        /// fetch included (an invalid URL, a scheme other than http and https, a header that
        /// cannot be sent), with the request's id; on the call's task, before the call returns;
        /// keep it quick. Nil (the default): nothing is told.
        ///
        ///     configuration.onEvent = { event in
        ///         metrics.timing("attachment.download", event.download)
        ///         logger.info("\(event.outcome) \(event.url) \(event.reason ?? "")")
        ///     }
        public var onEvent: (@Sendable (AttachmentEvent) -> Void)?

        /// The defaults (`Configuration.default`).
        public init() {}

        /// The per-item path's options for one folder.
        package func options(container: URL) -> ItemOptions {
            var options = ItemOptions(container: container)
            options.fetch = fetch
            options.limits = limits
            options.limits.thumbnailSize = thumbnailSize
            options.stableNames = stableNames
            options.admissionBudget = admissionBudget
            options.spoolBudget = spoolBudget
            options.maxInFlight = max(1, maxInFlight)
            options.perHost = max(1, perHost)
            options.cpuThreads = max(1, cpuThreads)
            return options
        }
    }
}

