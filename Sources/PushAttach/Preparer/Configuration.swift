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
        /// The engine's limits: long side, quality, pixel budget. `strict`, `acceptDamaged`,
        /// `rules` and `thumbnailSize` below take precedence over their copies here.
        public var limits = ProcessingLimits()
        /// Apple's caps and accepted formats, for every kind of media and the final check.
        public var rules = AppleRules.standard
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

        /// The admission budget, under its old name.
        @available(*, deprecated, renamed: "admissionBudget")
        public var memoryBudget: Int {
            get { admissionBudget }
            set { admissionBudget = newValue }
        }
        /// The disk the spooled downloads of one preparer may hold at once in one folder, in bytes.
        public var spoolBudget = 2_000_000_000
        /// Disagreements between the bytes and the claims (type hint, Content-Type, URL
        /// extension), codec warnings and malformed Exif reject instead of warn.
        public var strict = false
        /// Damaged image data is prepared from what decodes, with a warning, instead of rejected.
        public var acceptDamaged = false
        /// The largest image download, in bytes: an image over it is refused as too large
        /// (`.tooLarge`) as soon as its size shows, never read whole. Over iOS's 10 MB is fine
        /// (the engine shrinks such images); under it is honoured too (a service that wants
        /// nothing over 5 MB sets 5 MB).
        public var imageDownloadCap = 32_000_000
        /// Downloads at once per folder, and items in flight at once in a batch.
        public var maxInFlight = 16
        /// Downloads at once from one host.
        public var perHost = 6
        /// Threads for decoding, resizing, encoding and hashing (per folder in use).
        public var cpuThreads = max(1, ProcessInfo.processInfo.activeProcessorCount)
        /// Told how each call ended, with where its time went (`AttachmentEvent`): route it into
        /// your logging and metrics. Called once per call, on the call's task, before the call
        /// returns; keep it quick. Nil (the default): nothing is told.
        ///
        ///     configuration.onEvent = { event in
        ///         metrics.timing("attachment.download", event.download)
        ///         logger.info("\(event.outcome) \(event.url) \(event.reason ?? "")")
        ///     }
        public var onEvent: (@Sendable (AttachmentEvent) -> Void)?
        /// How reasons and errors spell the settings they tell the reader to change (`Setting`):
        /// the library's API names (`FetchPolicy.allowedHosts`) unless given others. A face over
        /// the library gives its own (the command line its flags), and they are what
        /// `AttachmentError.reason`, `BatchEntry.reason` and the manifest say.
        public var settingNames = SettingNames.library

        /// The defaults (`Configuration.default`).
        public init() {}

        /// The per-item path's options for one folder.
        package func options(container: URL) -> ItemOptions {
            var options = ItemOptions(container: container)
            options.fetch = fetch
            options.limits = limits
            options.limits.thumbnailSize = thumbnailSize
            options.rules = rules
            options.stableNames = stableNames
            options.admissionBudget = admissionBudget
            options.spoolBudget = spoolBudget
            options.strict = strict
            options.acceptDamaged = acceptDamaged
            options.imageDownloadCap = imageDownloadCap
            options.maxInFlight = max(1, maxInFlight)
            options.perHost = max(1, perHost)
            options.cpuThreads = max(1, cpuThreads)
            options.settingNames = settingNames
            return options
        }
    }
}
