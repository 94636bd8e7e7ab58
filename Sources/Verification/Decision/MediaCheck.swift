import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes

/// A file's facts and plan, from its bytes: the front door every face judges a file through.
/// `facts` sniffs the file once (its header window: a movie is never read into memory to be
/// judged) and has the engine read an image's codec header and metadata; `Planner.plan` decides;
/// `validate` is `verify`'s proof that an image's data decodes, the same decode the engine's
/// passthrough makes.
///
///     let planned = MediaCheck.plan(data, fileExtension: "webp", policy: AttachmentPolicy())
///     planned.plan.action   // .convert
///     let checked = MediaCheck.validate(data, planned, policy: AttachmentPolicy())
///     checked.plan.action   // .refuse when the decode found damage
public enum MediaCheck {
    /// The facts of `data`, under the name whose extension is `fileExtension` ("" for a name
    /// without one, nil for bytes without a name), with the `claims` made about it.
    ///
    /// Audio and video are sniffed from their header (`Sniffer.headerWindow`), a JPEG from its
    /// segments up to the start of frame (`Sniffer.jpegHeaderWindow`, walked in place), other
    /// images and unknown bytes whole; the result is the same as a sniff of the whole file.
    /// `readingImage: false` stops after the sniff (`readImage` comes later, on the item's CPU
    /// thread).
    public static func facts(
        _ data: Data, claims: [TypeClaim] = [], fileExtension: String?, policy: AttachmentPolicy,
        readingImage: Bool = true
    ) -> MediaFacts {
        let head = [UInt8](data.prefix(Sniffer.window(of: data)))
        var facts = MediaFacts(window: head, byteCount: data.count, fileExtension: fileExtension, claims: claims)
        if readingImage { readImage(data, into: &facts, policy: policy) }
        return facts
    }

    /// The facts of a file known by its first bytes only (one over every cap, read no further):
    /// enough to say what it is and that it is too large.
    public static func facts(
        prefix: [UInt8], byteCount: Int, claims: [TypeClaim] = [], fileExtension: String?
    ) -> MediaFacts {
        let window = Sniffer.headerWindow(prefix: prefix).map { Array(prefix.prefix($0)) } ?? prefix
        var facts = MediaFacts(window: window, byteCount: byteCount, fileExtension: fileExtension, claims: claims)
        // A header cut by the prefix is not damage: the file goes on.
        if case .truncated? = facts.headerDamage {
            facts.headerDamage = nil
            facts.sniffed = SniffedType(format: Sniffer.identify(prefix: prefix))
        }
        return facts
    }

    /// The engine's read of an image (stored size, orientation, colour space, an animation's
    /// container) into `facts.image`, or what stopped it into `facts.imageProblem`. Nothing for
    /// other media, a damaged header, or an image over the pixel budget by its sniffed header
    /// (the planner refuses it from the header, before any codec sees it).
    public static func readImage(_ data: Data, into facts: inout MediaFacts, policy: AttachmentPolicy) {
        let sniffed = facts.sniffed
        guard facts.image == nil, facts.imageProblem == nil, facts.headerDamage == nil,
            Planner.processedFormats.contains(sniffed.format)
        else { return }
        if let w = sniffed.width, let h = sniffed.height {
            let (pixels, overflow) = w.multipliedReportingOverflow(by: h)
            if overflow || pixels > policy.pixelBudget { return }
        }
        do {
            facts.image = try ImageProcessor.imageFacts(data, sniffed: sniffed, limits: policy.limits())
        } catch {
            facts.imageProblem = error.problem
        }
    }

    /// A file's facts and its plan.
    public struct Planned: Sendable, Hashable {
        /// What was read of the file.
        public var facts: MediaFacts
        /// What becomes of it.
        public var plan: Plan
        /// What the validation decode noted (codec warnings, damage accepted); empty before it.
        public var decodeWarnings: [String] = []

        /// The plan's notes, the image read's notes and the decode's warnings, in that order: a
        /// file's warnings in every face.
        public var warnings: [String] {
            plan.notes.map(\.description) + (facts.image?.notes ?? []) + decodeWarnings
        }
    }

    /// `facts` then `Planner.plan`.
    ///
    ///     let planned = MediaCheck.plan(data, fileExtension: "jpg", policy: AttachmentPolicy())
    public static func plan(
        _ data: Data, claims: [TypeClaim] = [], fileExtension: String?, policy: AttachmentPolicy
    ) -> Planned {
        let facts = facts(data, claims: claims, fileExtension: fileExtension, policy: policy)
        return Planned(facts: facts, plan: Planner.plan(facts, policy: policy))
    }

    /// `verify`'s proof that an image's data is whole, under the damage policy: one decode at
    /// the smallest scale (an animation's every frame), as the engine's passthrough makes
    /// (`ImageProcessor.validate`). A decode that finds damage turns the plan into the refusal
    /// the planner gives for it; what it notes becomes `decodeWarnings`. Other media, and plans
    /// that refuse already, are returned as they are.
    public static func validate(_ data: Data, _ planned: Planned, policy: AttachmentPolicy) -> Planned {
        var planned = planned
        guard planned.plan.action != .refuse, Planner.processedFormats.contains(planned.facts.format) else {
            return planned
        }
        do {
            planned.decodeWarnings = try ImageProcessor.validate(data, facts: planned.facts, limits: policy.limits())
        } catch {
            if let problem = error.problem {
                let refusal = Planner.refusal(for: problem, format: planned.facts.format, policy: policy)
                planned.plan = Planner.refused(refusal, as: planned.plan)
            }
        }
        return planned
    }
}
