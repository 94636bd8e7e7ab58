import Foundation
import MediaTypes
import SystemSupport

extension AttachmentPreparer {
    /// One result of a batch: the URL, and its attachment or why there is none.
    public typealias BatchResult = (url: URL, result: Result<PreparedAttachment, AttachmentError>)

    /// Prepares `urls` into `folder`, at most `Configuration.maxInFlight` at once, yielding each
    /// URL once, in the order they finish.
    ///
    ///     for await (url, result) in AttachmentPreparer.shared.prepare(urls, into: folder) {
    ///         switch result {
    ///         case .success(let attachment): print(url, attachment.fileURL)
    ///         case .failure(let error): print(url, error.reason)
    ///         }
    ///     }
    ///
    /// Cancelling the task that iterates (or dropping the iteration) cancels the items in
    /// flight (their downloads and CPU work stop, nothing partial is left) and starts no more.
    public func prepare(_ urls: [URL], into folder: URL) -> AsyncStream<BatchResult> {
        prepare(urls.map { AttachmentRequest(url: $0) }, into: folder)
    }

    /// Prepares `requests` (URLs with type hints and ids) into `folder`, at most
    /// `Configuration.maxInFlight` at once, yielding each request's URL once, in the order they
    /// finish.
    ///
    ///     let requests = [AttachmentRequest(url: URL(string: "https://cdn.example.com/a.webp")!, typeHint: "image")]
    ///     for await (url, result) in AttachmentPreparer.shared.prepare(requests, into: folder) {
    ///         print(url, (try? result.get())?.fileURL as Any)
    ///     }
    ///
    /// Cancelling the task that iterates cancels the items in flight and starts no more.
    public func prepare(_ requests: [AttachmentRequest], into folder: URL) -> AsyncStream<BatchResult> {
        let (stream, continuation) = AsyncStream.makeStream(of: BatchResult.self)
        let limit = max(1, configuration.maxInFlight)
        let task = Task {
            // Hold the folder for the whole batch, so its pipeline lives from first to last item.
            let held = try? runners.acquire(folder)
            defer { if let held { runners.release(held.key) } }
            await withTaskGroup(of: BatchResult.self) { group in
                var next = 0
                func start() {
                    let request = requests[next]
                    next += 1
                    group.addTask {
                        do throws(AttachmentError) {
                            return (request.url, .success(try await self.prepare(request, into: folder)))
                        } catch {
                            return (request.url, .failure(error))
                        }
                    }
                }
                while next < requests.count, next < limit { start() }
                while let result = await group.next() {
                    continuation.yield(result)
                    if !Task.isCancelled, next < requests.count { start() }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
