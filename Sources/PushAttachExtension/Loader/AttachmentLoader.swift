import Foundation
import MediaTypes
import PushPayloads

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turns a push's media URL into a file iOS attaches, inside a Notification Service Extension:
/// the URL found by the conventions `pushattach prepare` reads (a `pushattach serve` link
/// first), downloaded within a time budget and a byte cap, judged by its bytes, and named with
/// the extension of the type it really is.
///
///     let loaded = await AttachmentLoader().load(
///         userInfo: request.content.userInfo, into: FileManager.default.temporaryDirectory, within: .seconds(25))
///     loaded.fileURL    // …/tmp/3F2C…-cat.jpg (the URL was https://cdn.example.com/img/cat, no extension)
///     loaded.typeHint   // "public.jpeg"
///     loaded.reason     // nil; else why there is no file
///
/// What it refuses, with a reason (`LoadedAttachment.refusal`):
/// - bytes that are no media, saying what they look like (an HTML error page at `.jpg`);
/// - a body over iOS's cap for its kind, stopped as it streams past the cap (or refused before
///   the body when its declared length is over);
/// - media iOS does not attach (WebP, HEIC, …: `pushattach serve` converts them);
/// - a download that does not finish within the budget: it is cancelled, and nothing is left
///   in the folder. Cancelling the calling task does the same.
///
/// Only the finished file is ever visible in the folder under its name: the body goes to a
/// hidden `.<UUID>.download` there first and is renamed once accepted.
public struct AttachmentLoader: Sendable {
    /// What a load may fetch, and the caps it holds files to.
    public struct Settings: Sendable, Hashable {
        /// Host patterns the media URL (and every redirect) must match: `cdn.example.com`
        /// exactly, or `*.example.com` for its subdomains. Empty allows any host.
        public var allowedHosts: [String]
        /// Redirects followed before the load is refused. Default 5.
        public var maxRedirects: Int
        /// The types iOS attaches and the byte cap of each kind (10 MB images, 5 MB audio,
        /// 50 MB movies); lower a cap to hold files to less.
        public var rules: AppleRules

        /// Any host, 5 redirects, Apple's documented rules.
        public init(allowedHosts: [String] = [], maxRedirects: Int = 5, rules: AppleRules = .standard) {
            self.allowedHosts = allowedHosts
            self.maxRedirects = maxRedirects
            self.rules = rules
        }
    }

    /// The settings every load of this loader uses.
    public var settings: Settings

    /// A loader with `settings` (the defaults: any host, 5 redirects, Apple's caps).
    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    #if compiler(>=6.2)
        /// Loads the attachment the push's `userInfo` names into `folder` (created if missing:
        /// the temporary folder, or an app group's `Images/`), within `budget`.
        ///
        /// It reads `userInfo` where it is called (`nonisolated(nonsending)`), so an actor's or
        /// the main actor's dictionary need not be sent anywhere; the download runs off it.
        ///
        /// - Returns: the file and its type hint, or no file and the reason. Never throws.
        nonisolated(nonsending) public func load(
            userInfo: [AnyHashable: Any], into folder: URL, within budget: Duration
        ) async -> LoadedAttachment {
            await load(NotificationPayload(userInfo: userInfo), into: folder, within: budget)
        }
    #else
        /// Loads the attachment the push's `userInfo` names into `folder` (created if missing:
        /// the temporary folder, or an app group's `Images/`), within `budget`.
        ///
        /// - Returns: the file and its type hint, or no file and the reason. Never throws.
        public func load(
            userInfo: [AnyHashable: Any], into folder: URL, within budget: Duration
        ) async -> LoadedAttachment {
            await load(NotificationPayload(userInfo: userInfo), into: folder, within: budget)
        }
    #endif

    /// Loads the attachment `payload` names: `load(userInfo:into:within:)` for a payload read
    /// beforehand (a value that can go to another task).
    public func load(_ payload: NotificationPayload, into folder: URL, within budget: Duration) async
        -> LoadedAttachment
    {
        let deadline = ContinuousClock.now + budget
        let uuid = UUID()
        guard let media = payload.media else {
            return LoadedAttachment(
                refusal: .noMediaURL(senderNote: payload.senderNote), identifier: uuid.uuidString, media: nil)
        }
        let identifier = media.identifier ?? uuid.uuidString
        let part = folder.appendingPathComponent(".\(uuid.uuidString).download")
        let judged = await downloadAndDecide(media, to: part, until: deadline, budget: budget)
            .flatMap { accepted in keep(part, as: accepted, uuid: uuid, media: media) }
        switch judged {
        case .success(let (file, accepted)):
            return LoadedAttachment(
                fileURL: file, identifier: identifier, typeHint: accepted.typeHint, media: media,
                warnings: accepted.warnings)
        case .failure(let refusal):
            try? FileManager.default.removeItem(at: part)
            return LoadedAttachment(refusal: refusal, identifier: identifier, media: media)
        }
    }

    /// Downloads `media` to `part` (in the folder the file is kept in) and decides on it.
    private func downloadAndDecide(
        _ media: PayloadMedia, to part: URL, until deadline: ContinuousClock.Instant, budget: Duration
    ) async -> Result<AttachmentDecision.Accepted, AttachmentRefusal> {
        if let refusal = Download.refusal(for: media.url, allowedHosts: settings.allowedHosts) {
            return .failure(refusal)
        }
        let folder = part.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            return .failure(.cannotWrite(path: folder.path, detail: DisplayText.escaped(error.localizedDescription)))
        }
        var request = URLRequest(url: media.url)
        request.setValue(Self.accept, forHTTPHeaderField: "Accept")
        let policy = AttachmentDecision.policy(for: settings.rules)
        let limits = Download.Limits(policy: policy, maxRedirects: settings.maxRedirects, allowedHosts: settings.allowedHosts)
        let downloaded: Download.Downloaded
        switch await Download.run(request, to: part, limits: limits, until: deadline, budget: budget) {
        case .success(let body): downloaded = body
        case .failure(let refusal): return .failure(refusal)
        }
        let facts: AttachmentDecision.Facts
        do {
            facts = try Self.facts(of: part, downloaded, media: media)
        } catch {
            return .failure(.cannotWrite(path: part.path, detail: DisplayText.escaped(error.localizedDescription)))
        }
        switch AttachmentDecision.decide(facts, policy: policy) {
        case .accept(let accepted): return .success(accepted)
        case .refuse(let refusal): return .failure(refusal)
        }
    }

    /// Renames the accepted `part` to `<UUID>-<name>.<ext>`, named after the media's source;
    /// refused as cancelled when the caller gave up meanwhile.
    private func keep(
        _ part: URL, as accepted: AttachmentDecision.Accepted, uuid: UUID, media: PayloadMedia
    ) -> Result<(URL, AttachmentDecision.Accepted), AttachmentRefusal> {
        let name = AttachmentName(
            uuid: uuid, suggestedFilename: AttachmentName.lastPathComponent(of: media.source.absoluteString),
            fileExtension: accepted.fileExtension)
        let file = part.deletingLastPathComponent().appendingPathComponent(name.fileName)
        guard !Task.isCancelled else { return .failure(.cancelled) }
        do {
            try FileManager.default.moveItem(at: part, to: file)
        } catch {
            return .failure(.cannotWrite(path: file.path, detail: DisplayText.escaped(error.localizedDescription)))
        }
        return .success((file, accepted))
    }

    /// What the decision needs of a downloaded file: its header, sniffed from a mapped file
    /// without reading more of it than its format's facts need, and the claims about it.
    private static func facts(
        of file: URL, _ downloaded: Download.Downloaded, media: PayloadMedia
    ) throws -> AttachmentDecision.Facts {
        let data = try Data(contentsOf: file, options: .alwaysMapped)
        let window = [UInt8](data.prefix(Sniffer.window(of: data)))
        var claims: [TypeClaim] = []
        // A serve link's file is what serve made of the source: the source's own claims (its
        // extension, the sender's hint) describe the original, not this file.
        if !media.isServeLink {
            if let mediaType = media.mediaType { claims.append(TypeClaim(.mediaType, mediaType)) }
            let pathExtension = media.url.pathExtension
            if !pathExtension.isEmpty { claims.append(TypeClaim(.urlExtension, pathExtension)) }
        }
        if let contentType = downloaded.contentType { claims.append(TypeClaim(.contentType, contentType)) }
        return AttachmentDecision.Facts(
            media: MediaFacts(window: window, byteCount: data.count, claims: claims),
            serveTypeHint: downloaded.serveTypeHint)
    }

    /// The `Accept` header: the types iOS attaches, then anything (what comes is judged by its
    /// bytes).
    static let accept =
        (MediaFormat.allCases.filter(AppleRules.acceptedFormats.contains).map(\.mimeType) + ["*/*;q=0.1"])
        .joined(separator: ", ")
}
