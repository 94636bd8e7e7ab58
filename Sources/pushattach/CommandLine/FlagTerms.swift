import PushAttach

/// The library names its own settings in its messages (`FetchPolicy.allowedHosts`,
/// `CheckPolicy.pixelBudget`), never a flag; the command line shows every library message
/// through `translated(_:)`, which puts the flag that sets each one in its place.
///
///     FlagTerms.translated("… is not in the allowed hosts; allow the host in FetchPolicy.allowedHosts")
///     // "… is not in the allowed hosts; allow the host with --allow-host"
///
/// Each row is a phrase of a library message and what the command line says instead: whole
/// phrases first, so the sentence still reads, then the bare setting names as a fallback.
/// A library message that gains a setting name needs a row here (`FlagTermsTests` checks every
/// message that names one).
enum FlagTerms {
    static let table: [(library: String, cli: String)] = [
        // Fetch (`FetchError`)
        ("allow the host in FetchPolicy.allowedHosts", "allow the host with --allow-host"),
        ("set FetchPolicy.allowPrivateNetworks", "pass --allow-private-networks"),
        // Container (`ContainerError`)
        ("re-run with PrepareOptions.resume", "re-run with --resume"),
        ("another PrepareOptions.container", "another --container"),
        ("the PrepareOptions.container path", "the --container path"),
        ("lower PrepareOptions.maxInFlight", "lower --concurrency"),
        ("raise Spool.budget", "raise --spool-budget"),
        ("merge with partial set", "pass --partial"),
        ("the same shard option (PrepareOptions.shard)", "the same --shard K/N"),
        // Per-file decision (`MediaCheck`, `Verifier`, the engine's `ProcessingError`)
        ("set CheckPolicy.pixelBudget higher", "pass a higher --pixel-budget"),
        ("accept damaged images to use what decodes", "pass --accept-damaged to use what decodes"),
        // The setting names alone.
        ("FetchPolicy.allowedHosts", "--allow-host"),
        ("FetchPolicy.allowPrivateNetworks", "--allow-private-networks"),
        ("FetchPolicy.maxRedirects", "--max-redirects"),
        ("FetchPolicy.deadline", "--timeout"),
        ("FetchPolicy.maxRetries", "--retries"),
        ("PrepareOptions.resume", "--resume"),
        ("PrepareOptions.shard", "--shard"),
        ("PrepareOptions.container", "--container"),
        ("PrepareOptions.maxInFlight", "--concurrency"),
        ("PrepareOptions.perHost", "--per-host"),
        ("PrepareOptions.acceptDamaged", "--accept-damaged"),
        ("PrepareOptions.strict", "--strict"),
        ("CheckPolicy.pixelBudget", "--pixel-budget"),
        ("CheckPolicy.acceptDamaged", "--accept-damaged"),
        ("CheckPolicy.strict", "--strict"),
        ("AppleRules.decodedBudget", "--decoded-budget"),
        ("ProcessingLimits.decodedBudget", "--decoded-budget"),
        ("PrepareOptions.admissionBudget", "--memory-budget"),
        ("Configuration.admissionBudget", "--memory-budget"),
        ("PrepareOptions.spoolBudget", "--spool-budget"),
        ("Spool.budget", "--spool-budget"),
    ]

    /// `text` with each library phrase of `table` replaced by the command line's.
    static func translated(_ text: String) -> String {
        var out = text
        for row in table where out.contains(row.library) {
            out = out.replacingOccurrences(of: row.library, with: row.cli)
        }
        return out
    }

    /// A `verify` report with its reason and warnings in the command line's words.
    static func translated(_ report: AttachmentReport) -> AttachmentReport {
        var copy = report
        copy.reason = report.reason.map(translated)
        copy.warnings = report.warnings.map(translated)
        return copy
    }

    /// A `prepare` event with its texts in the command line's words (the manifest on disk keeps
    /// the library's).
    static func translated(_ event: AttachmentBatch.Event) -> AttachmentBatch.Event {
        switch event {
        case .finished(var entry):
            entry.reason = entry.reason.map(translated)
            entry.warnings = entry.warnings.map(translated)
            return .finished(entry)
        case .note(let text):
            return .note(translated(text))
        case .started, .skipped, .cancelled:
            return event
        }
    }

    /// A run's summary with its top reasons in the command line's words.
    static func translated(_ summary: BatchSummary) -> BatchSummary {
        var copy = summary
        copy.reasons = [:]
        for (reason, count) in summary.reasons { copy.reasons[translated(reason), default: 0] += count }
        copy.reportError = summary.reportError.map(translated)
        return copy
    }
}
