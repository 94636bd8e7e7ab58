import Foundation
import PushAttach

extension RequestRouter {
    /// Prepares the link's attachment (or thumbnail) and stores it in the cache: one flight's
    /// work, under the preparation budget (not a request's deadline: it goes on after its
    /// requests gave up), timed for the preparation histogram and the 504's estimate.
    func prepare(_ link: AttachmentLink, key: AttachmentCache.Key) async -> Outcome {
        let start = ContinuousClock.now
        preparationStarts.withLock { $0[key.digest] = start }
        defer {
            let end = ContinuousClock.now
            let took = end - start
            // The end first: a reader of both never sees this preparation gone and an older end.
            lastPreparationEnd.withLock { $0 = end }
            preparationStarts.withLock { _ = $0.removeValue(forKey: key.digest) }
            metrics.prepared(seconds: took.inSeconds)
            if took > configuration.deadline {
                slowPreparations.withLock { durations in
                    durations.append(took)
                    if durations.count > 32 { durations.removeFirst(durations.count - 32) }
                }
            }
        }
        let budget = configuration.prepareTimeout
        return await withTaskGroup(of: Outcome?.self) { group in
            group.addTask { [self] in await produce(link, key: key) }
            // Nil: the budget is spent (or the flight was cancelled, which ends the sleep at once).
            group.addTask {
                try? await Task.sleep(for: budget)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if let outcome = first { return outcome }
            if Task.isCancelled {
                return .problem(AttachmentProblem(
                    status: 503, error: "unavailable", reason: "the server is shutting down; try again",
                    retryAfter: .seconds(1)))
            }
            return .problem(AttachmentProblem(
                status: 504, error: "timeout",
                reason: "not prepared within the server's preparation budget (\(Self.seconds(budget))): the origin or the file is too slow; the preparation was stopped"))
        }
    }

    /// How long the preparation of `key` may still run (its budget's rest), and an estimate of
    /// when it will end: the median of the recent preparations that outlived a request and ran
    /// longer than this one has so far, less what it has run (without any, one request
    /// deadline), within 1 s and the budget's rest. The estimate is a 504's `Retry-After`; a
    /// retry before it only waits in the flight, costing the origin nothing.
    func timeLeft(preparing key: String) -> (left: Duration, estimate: Duration) {
        guard let start = preparationStarts.withLock({ $0[key] }) else {
            // Just ended: a retry finds it cached.
            return (.zero, .seconds(1))
        }
        let elapsed = ContinuousClock.now - start
        let left = max(.zero, configuration.prepareTimeout - elapsed)
        let longer = slowPreparations.withLock { $0 }.filter { $0 > elapsed }.sorted()
        let typical = longer.isEmpty ? configuration.deadline : longer[longer.count / 2] - elapsed
        return (left, min(max(typical, .seconds(1)), max(left, .seconds(1))))
    }

    /// "20 s", "1.5 s".
    static func seconds(_ duration: Duration) -> String {
        let value = duration.inSeconds
        return value == value.rounded() ? "\(Int(value)) s" : "\(value.rounded(toPlaces: 1)) s"
    }

    /// `prepare` without the timing (a thumbnail calls it for the attachment it is made from):
    /// the entry another replica sharing the cache folder stored, or this one's own preparation
    /// under the key's lease, one preparation across replicas.
    func produce(_ link: AttachmentLink, key: AttachmentCache.Key) async -> Outcome {
        do throws(AttachmentError) {
            switch try await cache.claim(key) {
            case .entry(let entry):
                metrics.preparedElsewhere()
                return .cached(entry)
            case .lease(let lease):
                defer { lease.release() }
                return await make(link, key: key)
            }
        } catch {
            return .problem(AttachmentProblem(error))
        }
    }

    /// Prepares (or makes the thumbnail of) `link` and stores it, or stores the refusal, while
    /// the key's lease is held: waiting replicas then find the entry.
    private func make(_ link: AttachmentLink, key: AttachmentCache.Key) async -> Outcome {
        do throws(AttachmentError) {
            guard let side = link.thumbnailSize else {
                metrics.fetched()
                var request = AttachmentRequest(url: link.source, typeHint: link.typeHint)
                request.headers = configuration.originHeaders(forHost: link.source.host ?? "")
                let attachment = try await cache.prepare(request, with: preparer)
                return .cached(try cache.store(attachment, for: key))
            }
            var whole = link
            whole.thumbnailSize = nil
            let entry: AttachmentCache.Entry
            switch await produce(whole, key: AttachmentCache.Key(whole, variant: configuration.variant)) {
            case .cached(let prepared): entry = prepared
            case .problem(let problem): return .problem(problem)
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
