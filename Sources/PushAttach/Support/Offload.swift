import Foundation
import ImageEngine
import MediaTypes
import SystemSupport

/// Threads for the CPU work of calls that have no preparer of their own (`AttachmentVerifier`,
/// `Thumbnail`), so decodes never block Swift's cooperative pool. Started on first use, one
/// per core, and kept for the life of the process.
enum Offload {
    static let threads = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// One `ImageProcessor` per thread (it is not thread-safe).
    static let images = WorkerPool<ImageProcessor>(name: "library.image", threads: threads) { ImageProcessor() }

    /// Stateless work: the verifier's reads and decodes.
    static let plain = WorkerPool<Void>(name: "library.verify", threads: threads) { () }
}
