import Foundation

/// The last few CMYK → sRGB transforms, keyed by the exact profile bytes and the inversion, so a
/// batch of files from one press workflow (the same SWOP or FOGRA profile) builds its transform
/// once: building one costs about 20 ms, more than decoding a small image.
///
///     let transform = CMYKTransformCache.shared.transform(for: icc, inverted: true)
///
/// Bounded: at most `capacity` entries, least recently used first out, and only profiles up to
/// `maximumProfileBytes` are kept (a key holds its profile's bytes, compared in full: a hash
/// collision must never hand out another profile's colours). Worst case about
/// 4 × (1 MB + 0.5 MB). Failures are not cached (a bad profile fails fast anyway).
/// Thread-safe: a lock guards the list; a transform is built outside it, so two threads
/// missing on the same profile may both build, and the second is dropped.
final class CMYKTransformCache: @unchecked Sendable {
    static let shared = CMYKTransformCache(capacity: 4)
    /// Larger profiles are converted with but not cached (common press profiles are 0.5-0.7 MB).
    static let maximumProfileBytes = 1 << 20

    private struct Entry {
        let inverted: Bool
        let profile: [UInt8]
        let transform: CMYKColorTransform
    }

    private let lock = NSLock()
    /// Most recently used last.
    private var entries: [Entry] = []
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// The transform for `profile` and `inverted`, from the cache or newly built (and cached
    /// when the profile is small enough).
    func transform(for profile: [UInt8], inverted: Bool) -> Result<CMYKColorTransform, CMYKColorTransform.Failure> {
        if let hit = lookUp(profile, inverted: inverted) { return .success(hit) }
        let made = CMYKColorTransform.make(profile: profile, inverted: inverted)
        if case .success(let transform) = made, profile.count <= Self.maximumProfileBytes {
            lock.withLock {
                guard !entries.contains(where: { $0.inverted == inverted && $0.profile == profile }) else { return }
                if entries.count >= capacity { entries.removeFirst() }
                entries.append(Entry(inverted: inverted, profile: profile, transform: transform))
            }
        }
        return made
    }

    /// Entries held now (for tests).
    var count: Int { lock.withLock { entries.count } }

    private func lookUp(_ profile: [UInt8], inverted: Bool) -> CMYKColorTransform? {
        lock.withLock {
            guard let index = entries.firstIndex(where: { $0.inverted == inverted && $0.profile == profile }) else {
                return nil
            }
            let entry = entries.remove(at: index)
            entries.append(entry)
            return entry.transform
        }
    }
}
