import Foundation
import PushAttach
import SystemSupport

extension AttachmentBatch {
    /// How `rewrite` went.
    public struct RewriteSummary: Sendable, Hashable {
        /// Payloads written with every media URL pointing at a prepared file (or with no media).
        public var rewritten: Int
        /// Payloads written with refused media removed and a `pushattach_error` note.
        public var withErrors: Int
        /// Payloads left out (`dropRefused`).
        public var dropped: Int
        /// Inputs that are not payloads (URL lists, local media files), passed over.
        public var notPayloads: Int
        /// The JSON lines file written.
        public var output: URL
    }

    /// Writes the payloads of `inputs` (those a finished batch of this folder prepared from)
    /// to `output`, one JSON line each, pointing at the prepared files: each media URL becomes
    /// `baseURL` + the file's path in the folder (`Images/<UUID>-cat.jpg`), with the type hint in
    /// the convention's own key (`media_type` gets the UTI; OneSignal's `att` `type`, Airship's
    /// `options.type` and Braze's `asset_file_type` the extension; CleverTap's `ct_mediaType` the
    /// category). Media the batch refused is removed, with a `pushattach_error` note saying why,
    /// or the whole payload is left out with `dropRefused`. Upload the folder to `baseURL` with
    /// your own tools (`aws s3 sync DIR s3://bucket/push/`).
    ///
    ///     let summary = try await batch.run([.file(export)])
    ///     try batch.rewrite([.file(export)], to: URL(fileURLWithPath: "out.jsonl"),
    ///                       baseURL: URL(string: "https://cdn.example.com/push/")!)
    ///
    /// - Throws: `AttachmentError` of kind `.writeFailed` when the folder has no `manifest.json`
    ///   or `output` cannot be written; `.invalidArgument` for standard input (read once, by the
    ///   batch) or a base URL that is not http(s).
    public func rewrite(_ inputs: [BatchInput], to output: URL, baseURL: URL, dropRefused: Bool = false)
        throws(AttachmentError) -> RewriteSummary
    {
        guard let scheme = baseURL.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw AttachmentError(kind: .invalidArgument, reason: "the base URL \(baseURL.absoluteString) is not http(s)")
        }
        var paths: [String] = []
        for input in inputs {
            switch input.source {
            case .file(let path): paths.append(path)
            case .urls: continue
            case .standardInput:
                throw AttachmentError(
                    kind: .invalidArgument,
                    reason: "payloads on standard input were read once, by the batch: give them as a file to rewrite them")
            }
        }
        let outcomes: [String: PayloadRewriter.Outcome]
        do { outcomes = try PayloadRewriter.outcomes(manifest: folder.appendingPathComponent("manifest.json")) } catch {
            throw AttachmentError(kind: .writeFailed, reason: "cannot rewrite payloads: \(error)")
        }
        do {
            let counts = try PayloadRewriter.rewrite(
                inputs: paths, outcomes: outcomes, baseURL: baseURL.absoluteString, dropRefused: dropRefused, output: output)
            return RewriteSummary(
                rewritten: counts.rewritten, withErrors: counts.withErrors, dropped: counts.dropped,
                notPayloads: counts.notPayloads, output: output)
        } catch {
            throw AttachmentError(kind: .writeFailed, reason: "cannot write \(output.path): \(error)", underlying: .container(error))
        }
    }
}
