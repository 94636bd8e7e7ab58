import Fetch
import Foundation
import ImageEngine
import MediaTypes
import SystemSupport
import Verification

/// How the per-item path prepares each item into one container: the download, the engine, the
/// rules and the budgets. Every caller's path: `AttachmentPreparer` builds it from its
/// `Configuration`, a batch (`PushAttachBatch`'s `PrepareOptions`) holds one beside its inputs.
///
///     var options = ItemOptions(container: URL(fileURLWithPath: "out"))
///     options.limits.thumbnailSize = 256
///     options.fetch.allowPrivateNetworks = true
///     let pipeline = ItemPipeline(options: options, container: try Container.open(at: options.container))
package struct ItemOptions: Sendable {
    /// The container folder (created when missing).
    package var container: URL
    /// Items in flight at once (downloading, processing or writing): the back-pressure window.
    package var maxInFlight = 16
    /// Downloads at once from one host.
    package var perHost = 6
    /// The memory the items in flight may reserve together, in bytes (default 256 MB). Each
    /// item reserves the in-memory part of its download (at most `fetch.spoolThreshold`) while
    /// it downloads, then, once its header is read, what the engine will need for it
    /// (`ImageProcessor.workingMemory`) plus its body; an item waits while the others hold too
    /// much, first come first served. An item needing more than the whole budget waits until
    /// nothing else holds any and then runs alone.
    package var admissionBudget = 256_000_000
    /// The disk the spooled downloads in flight may reserve together, in bytes (default 2 GB).
    /// A download longer than `fetch.spoolThreshold` is written to the container's `.spool/`
    /// as it streams, reserving its byte cap first; when the reservations leave too little it
    /// waits, up to its deadline (`fetch.deadline`), then fails with a message naming the
    /// budget. A download whose cap is over the whole budget waits until nothing else is
    /// spooled and then runs alone.
    package var spoolBudget = 2_000_000_000
    /// Threads for CPU work (decode, resize, encode, hashing); the core count by default.
    package var cpuThreads = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Name-based (v5) UUIDs of the URL instead of random ones, so re-runs give the same names.
    package var stableNames = false
    /// Redirects, private networks, allowed hosts, deadline, retries, the spool threshold.
    /// `byteCap` and `tightenCap` are set by the preparer from the policy's input caps,
    /// `spool` from the container and `spoolBudget`.
    package var fetch = FetchPolicy()
    /// The engine's limits: byte cap, long side, JPEG quality, `--thumbnail N` (`thumbnailSize`),
    /// and the policy (`policy`): setting `limits` whole sets the policy too.
    package var limits = ProcessingLimits()
    /// Tests only: told as an item (its `index`) reaches each stage, on the thread that runs
    /// it, so a test can cancel the run right there.
    package var stageObserver: (@Sendable (_ index: Int, _ stage: ItemStage) -> Void)?

    /// The per-file policy `prepare` shares with `verify`: rules (audio and movie caps, the
    /// final check), pixel budget, strictness, damage, setting names. Stored in `limits`, so
    /// the engine reads the same value.
    package var policy: AttachmentPolicy {
        get { limits.policy }
        set { limits.policy = newValue }
    }

    package init(container: URL) { self.container = container }
}

/// Where an item is, for `ItemOptions.stageObserver`.
package enum ItemStage: Sendable, Hashable {
    /// Its body is in (memory or the spool); admission and the engine come next.
    case downloaded
    /// The engine starts on it (on a CPU thread): sniff, plan, decode, resize, encode.
    case processing
    /// The engine is done (the output encoded, in memory); the write comes next.
    case processed
    /// Its files were written (on an I/O thread), before the entry is made.
    case written
}
