/// The one function that decides what becomes of a file: from its facts (`MediaFacts`, read once)
/// and the policy to a `Plan`. `verify` prints the plan; `prepare`, the library, the batch and
/// `serve` (thumbnails included) have the engine carry it out. Every refusal and every
/// UNErrorCode is made here; faces render them.
///
///     let facts = MediaFacts(bytes: Array(webp), fileExtension: "webp")
///     let plan = Planner.plan(facts, policy: AttachmentPolicy())
///     plan.action   // .convert
///     plan.output   // .jpeg
///     plan.asIs     // .rejected(.unrecognizedType): iOS refuses WebP
///
/// The order of the questions: is the header whole; is it media at all; do the claims agree
/// (strict); does iOS take the format or can we convert it; is it within the cap of its kind;
/// for an image, is its header within the pixel budget and readable, and then is it sent as it is
/// or fitted (a still) or re-encoded (an animation).
public enum Planner {
    /// The plan for a file with `facts`, under `policy`.
    ///
    /// - Complexity: O(1) but for the claims and a movie's tracks.
    public static func plan(_ facts: MediaFacts, policy: AttachmentPolicy) -> Plan {
        let asIs = self.asIs(facts, policy: policy)
        var notes: [Plan.Note] = []
        if let refusal = refusalBeforeDecoding(facts, policy: policy, notes: &notes) {
            return refused(refusal, asIs: asIs, notes: notes)
        }
        let format = facts.format
        guard processedFormats.contains(format) else {
            // Audio and movies iOS takes: sent as they came.
            notes += facts.sniffed.tracks.filter { !$0.playsOnIOS }.map(Plan.Note.trackNotPlayable)
            var plan = sameBytes(format, fileExtension: facts.fileExtension, asIs: asIs)
            plan.notes = notes
            return plan
        }
        if let problem = facts.imageProblem {
            return refused(refusal(for: problem, format: format, policy: policy), asIs: asIs, notes: notes)
        }
        var plan =
            isAnimation(facts.sniffed)
            ? animationPlan(facts, policy: policy, asIs: asIs) : stillPlan(facts, policy: policy, asIs: asIs)
        plan.notes = notes + plan.notes
        return plan
    }

    /// The refusal for what the engine found in an image's bytes, whether it found it reading
    /// the header (`MediaFacts.imageProblem`) or carrying out the plan.
    public static func refusal(for problem: DecodeProblem, format: MediaFormat, policy: AttachmentPolicy) -> Refusal {
        switch problem {
        case .corrupt(let detail): .damaged(format, .corrupt(detail: detail))
        case .damagedData(let detail): .damaged(format, .data(detail: detail))
        case .malformedExif(let detail): .damaged(format, .exif(detail: detail))
        case .unsupported(let codec, let detail): .unsupportedVariant(format, codec: codec, detail: detail)
        case .pixelBudgetExceeded(let width, let height):
            .overPixelBudget(format, width: width, height: height, budget: policy.pixelBudget)
        case .cannotFit(let cap, let smallest): .noSizeFits(cap: cap, smallest: smallest)
        }
    }

    /// The refusal for a body stopped at its cap while it arrived (a download, a file too large
    /// to read): what its first bytes are decides which cap it was over, and bytes of no media
    /// format are refused as that, whatever their size.
    ///
    ///     Planner.refusal(forBodyOver: 50_000_000, firstBytes: mp4Start, bytes: 55_000_000, exact: true, policy: policy)
    ///     // .overCap(.ios(.movie, cap: 50_000_000), bytes: 55_000_000, atLeast: false)
    public static func refusal(
        forBodyOver cap: Int, firstBytes: [UInt8], bytes: Int, exact: Bool, policy: AttachmentPolicy
    ) -> Refusal {
        let format = Sniffer.identify(prefix: firstBytes)
        if firstBytes.isEmpty { return .overCap(.anyMedia(cap: cap), bytes: bytes, atLeast: !exact) }
        guard let category = format.category, format != .pdf else { return .notMedia(ContentGuess.of(firstBytes)) }
        return .overCap(byteCap(category, policy: policy), bytes: bytes, atLeast: !exact)
    }

    /// The plan for a thumbnail of the file (`policy` fitting it to the thumbnail's box): the
    /// file's own plan, but media with no picture the engine decodes (audio, movies, formats it
    /// passes through) is refused, as there is nothing to take a thumbnail from.
    ///
    ///     Planner.thumbnailPlan(wavFacts, policy: policy).refusal   // .noPicture(.wav)
    public static func thumbnailPlan(_ facts: MediaFacts, policy: AttachmentPolicy) -> Plan {
        let plan = plan(facts, policy: policy)
        guard plan.action != .refuse, !processedFormats.contains(facts.format) else { return plan }
        return refused(.noPicture(facts.format), asIs: plan.asIs, notes: plan.notes)
    }

    /// The formats the engine decodes and so plans pixel by pixel: JPEG, PNG, WebP, HEIC, HEIF,
    /// AVIF and GIF.
    public static let processedFormats: Set<MediaFormat> = [.jpeg, .png, .webp, .heic, .heif, .avif, .gif]

    /// True for what the engine treats as an animation: every GIF, an animated WebP.
    public static func isAnimation(_ sniffed: SniffedType) -> Bool {
        sniffed.format == .gif || (sniffed.format == .webp && sniffed.isAnimated)
    }

    // MARK: - Refusals on the header

    private static func refusalBeforeDecoding(_ facts: MediaFacts, policy: AttachmentPolicy, notes: inout [Plan.Note])
        -> Refusal?
    {
        let sniffed = facts.sniffed
        if let damage = facts.headerDamage { return .damaged(damage.format, .header(damage)) }
        guard let category = sniffed.format.category, sniffed.format != .pdf else {
            return .notMedia(facts.looksLike)
        }
        do {
            let reconciled = try TypeReconciler.reconcile(sniffed.format, claims: facts.claims, strict: policy.strict)
            notes += reconciled.unreadable.map(Plan.Note.claimUnreadable)
            notes += reconciled.mismatches.map(Plan.Note.claimDisagrees)
        } catch {
            return .claimMismatch(error)
        }
        if !policy.rules.isAccepted(sniffed.format), !AppleRules.transcodableFormats.contains(sniffed.format) {
            return .notAccepted(sniffed.format, tracks: sniffed.tracks)
        }
        if facts.byteCount > policy.inputCap(for: category) {
            return .overCap(byteCap(category, policy: policy), bytes: facts.byteCount, atLeast: false)
        }
        if category == .image, let w = sniffed.width, let h = sniffed.height, isOverPixelBudget(w, h, policy) {
            return .overPixelBudget(sniffed.format, width: w, height: h, budget: policy.pixelBudget)
        }
        return nil
    }

    /// The cap a body of `category` is held to, as a refusal names it: iOS's, or for images the
    /// image input cap when it is not iOS's own (a preparer that takes in nothing it cannot send,
    /// as an extension, is held to iOS's).
    static func byteCap(_ category: MediaCategory, policy: AttachmentPolicy) -> Refusal.ByteCap {
        let cap = policy.inputCap(for: category)
        return category == .image && cap != policy.rules.imageByteCap ? .imageInput(cap: cap) : .ios(category, cap: cap)
    }

    static func isOverPixelBudget(_ width: Int, _ height: Int, _ policy: AttachmentPolicy) -> Bool {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow || pixels > policy.pixelBudget
    }

    /// `plan` turned into a refusal for `refusal`, met while it was carried out (a decode that
    /// found damage, no size that fits): its notes, and what iOS does with the file as it is, stay.
    ///
    ///     let plan = Planner.refused(Planner.refusal(for: problem, format: .jpeg, policy: policy), as: plan)
    public static func refused(_ refusal: Refusal, as plan: Plan) -> Plan {
        refused(refusal, asIs: plan.asIs, notes: plan.notes)
    }

    private static func refused(_ refusal: Refusal, asIs: Plan.AsIs, notes: [Plan.Note]) -> Plan {
        // Refused for what its bytes hold (damage, the pixel budget), a file iOS would take by its
        // type and size is one it would refuse too.
        let asIs: Plan.AsIs = asIs == .accepted ? refusal.code.map(Plan.AsIs.rejected) ?? .accepted : asIs
        return Plan(action: .refuse, output: nil, refusal: refusal, notes: notes, asIs: asIs)
    }

    // MARK: - What iOS does with the file as it is

    /// iOS's own verdict on the file under its name, `prepare` aside: a format it refuses is 101
    /// whether or not we can convert it, a file over its cap 102, a name that does not say the
    /// type 101.
    static func asIs(_ facts: MediaFacts, policy: AttachmentPolicy) -> Plan.AsIs {
        let format = facts.format
        if facts.headerDamage != nil { return .rejected(.corrupt) }
        guard let category = format.category, format != .pdf, policy.rules.isAccepted(format) else {
            return .rejected(.unrecognizedType)
        }
        if facts.byteCount > policy.rules.byteCap(for: category) { return .rejected(.invalidFileSize) }
        if isRenamed(format, fileExtension: facts.fileExtension) { return .rejected(.unrecognizedType) }
        return .accepted
    }

    /// True when the name's extension does not name `format` ("" counts: no extension); false
    /// for bytes without a name.
    ///
    ///     Planner.isRenamed(.png, fileExtension: "jpg")   // true: prepare writes it as .png
    public static func isRenamed(_ format: MediaFormat, fileExtension: String?) -> Bool {
        guard let fileExtension else { return false }
        var ext = fileExtension.trimmingWhitespace.lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        return !format.allExtensions.contains(ext)
    }

    /// The bytes as they are: under their name, or renamed when its extension does not say the type.
    private static func sameBytes(_ format: MediaFormat, fileExtension: String?, asIs: Plan.AsIs) -> Plan {
        guard isRenamed(format, fileExtension: fileExtension), let ext = fileExtension else {
            return Plan(action: .passThrough, output: format, asIs: asIs)
        }
        return Plan(action: .rename, output: format, changes: [.misnamed(fileExtension: ext)], asIs: asIs)
    }

    // MARK: - Stills

    /// Sent as it is when iOS takes the format and it is within the byte cap, the long side and
    /// the decoded budget, upright and not CMYK; else fitted (a format iOS takes) or converted
    /// (one it refuses) to JPEG, or PNG for a PNG or an image with alpha.
    private static func stillPlan(_ facts: MediaFacts, policy: AttachmentPolicy, asIs: Plan.AsIs) -> Plan {
        let sniffed = facts.sniffed
        let format = sniffed.format
        let image =
            facts.image
            ?? ImageFacts(stored: Size(width: max(1, sniffed.width ?? 1), height: max(1, sniffed.height ?? 1)))
        let upright = image.upright
        let target = TargetSize.main(for: upright, policy: policy)
        var changes: [Plan.Change] = []
        if !policy.rules.isAccepted(format) { changes.append(.formatRefusedByIOS(format)) }
        if facts.byteCount > policy.rules.imageByteCap {
            changes.append(.overByteCap(bytes: facts.byteCount, cap: policy.rules.imageByteCap))
        }
        if max(upright.width, upright.height) > policy.maxLongSide {
            changes.append(.overLongSide(upright, limit: policy.maxLongSide))
        } else if target != upright {
            changes.append(.overDecodedBudget(upright, budget: policy.rules.decodedBudget))
        }
        if image.orientation != .up { changes.append(.turned(image.orientation)) }
        if image.isCMYK { changes.append(.cmyk) }
        guard !changes.isEmpty else { return sameBytes(format, fileExtension: facts.fileExtension, asIs: asIs) }

        let hasAlpha = sniffed.hasAlpha ?? false
        let output: MediaFormat = format == .png || (format != .jpeg && hasAlpha) ? .png : .jpeg
        var mayDeviate: Set<Plan.Deviation> = []
        if output == .png {
            mayDeviate.insert(.pngOverCapAsJPEG)
            if format != .png { mayDeviate.insert(.opaqueAlphaAsJPEG) }
        }
        var notes: [Plan.Note] = []
        if sniffed.isAnimated || (sniffed.frames ?? 1) > 1 { notes.append(.firstFrameOnly(format, frames: sniffed.frames)) }
        return Plan(
            action: policy.rules.isAccepted(format) ? .fit : .convert, output: output, target: target,
            mayDeviate: mayDeviate, changes: changes, notes: notes, asIs: asIs)
    }

    // MARK: - Animations

    /// A GIF or an animated WebP: its first frame when it is over the frame or duration cap;
    /// re-encoded as a GIF when it is a WebP, or a GIF over the byte cap or the decoded budget;
    /// else the GIF as it is. Without the container's facts (never read), the sniffed frame
    /// count stands and the duration counts as within the cap.
    private static func animationPlan(_ facts: MediaFacts, policy: AttachmentPolicy, asIs: Plan.AsIs) -> Plan {
        let sniffed = facts.sniffed
        let format = sniffed.format
        let animation = facts.image?.animation
        let canvas =
            animation?.canvas ?? Size(width: max(1, sniffed.width ?? 1), height: max(1, sniffed.height ?? 1))
        let frames = animation?.frames ?? sniffed.frames
        let target = TargetSize.main(for: canvas, policy: policy)
        if let frames, frames > policy.maxAnimationFrames {
            let change = Plan.Change.overFrameCap(frames: frames, cap: policy.maxAnimationFrames)
            return firstFrame(sniffed, frames: frames, target, [change], asIs)
        }
        if let duration = animation?.durationMilliseconds, duration > policy.maxAnimationDuration {
            let change = Plan.Change.overDurationCap(milliseconds: duration, cap: policy.maxAnimationDuration)
            return firstFrame(sniffed, frames: frames, target, [change], asIs)
        }
        var changes: [Plan.Change] = []
        if format != .gif { changes.append(.formatRefusedByIOS(format)) }
        if facts.byteCount > policy.rules.imageByteCap {
            changes.append(.overByteCap(bytes: facts.byteCount, cap: policy.rules.imageByteCap))
        }
        let (pixels, overflow) = canvas.width.multipliedReportingOverflow(by: canvas.height)
        if overflow || pixels > policy.rules.decodedBudget / 4 {
            changes.append(.overDecodedBudget(canvas, budget: policy.rules.decodedBudget))
        }
        guard !changes.isEmpty else { return sameBytes(format, fileExtension: facts.fileExtension, asIs: asIs) }
        return Plan(
            action: .reencodeAnimation, output: .gif, target: target, mayDeviate: [.animationAsFirstFrame],
            changes: changes, asIs: asIs)
    }

    private static func firstFrame(
        _ sniffed: SniffedType, frames: Int?, _ target: Size, _ changes: [Plan.Change], _ asIs: Plan.AsIs
    ) -> Plan {
        let still: MediaFormat = sniffed.hasAlpha ?? false ? .png : .jpeg
        return Plan(
            action: .firstFrame, output: still, target: target, mayDeviate: still == .png ? [.opaqueAlphaAsJPEG] : [],
            changes: changes, notes: [.firstFrameOnly(sniffed.format, frames: frames)], asIs: asIs)
    }
}
