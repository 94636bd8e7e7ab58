import Foundation
import PushAttach

extension RequestRouter {
    /// Prepares the link's attachment (or thumbnail) and stores it in the cache: one flight's
    /// work, timed for the preparation histogram.
    func prepare(_ link: AttachmentLink, key: AttachmentCache.Key) async -> Outcome {
        let start = ContinuousClock.now
        defer {
            metrics.prepared(seconds: (ContinuousClock.now - start).inSeconds)
        }
        return await produce(link, key: key)
    }

    /// `prepare` without the timing: a thumbnail calls it for the attachment it is made from.
    func produce(_ link: AttachmentLink, key: AttachmentCache.Key) async -> Outcome {
        do throws(AttachmentError) {
            guard let side = link.thumbnailSize else {
                metrics.fetched()
                let attachment = try await cache.prepare(
                    AttachmentRequest(url: link.source, typeHint: link.typeHint), with: preparer)
                return .cached(try cache.store(attachment, for: key))
            }
            var whole = link
            whole.thumbnailSize = nil
            let wholeKey = AttachmentCache.Key(whole, variant: configuration.variant)
            let entry: AttachmentCache.Entry
            if let cached = cache.entry(for: wholeKey) {
                entry = cached
            } else {
                switch await produce(whole, key: wholeKey) {
                case .cached(let prepared): entry = prepared
                case .problem(let problem): return .problem(problem)
                }
            }
            guard entry.answer.status == 200 else {
                let body = try entry.body()
                return .problem(
                    (try? JSONDecoder().decode(AttachmentProblem.self, from: body))
                        ?? AttachmentProblem(status: entry.answer.status, error: "rejected", reason: "refused"))
            }
            return .cached(try cache.store(try await Thumbnail.image(from: try entry.body(), maxSide: side), for: key))
        } catch {
            let problem = AttachmentProblem(error)
            try? cache.store(problem, for: key)
            return .problem(problem)
        }
    }
}
