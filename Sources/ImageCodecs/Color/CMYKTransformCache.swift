import Foundation

/// The last few CMYK → sRGB transforms, keyed by the exact profile bytes, the inversion and the
/// rendering (the default CMYK profile's transform is one of them), so a
/// batch of files from one press workflow (the same SWOP or FOGRA profile) builds its transform
/// once: building one costs about 30 ms (the SWOP profile of the corpus CMYK photo), more than
/// decoding a small image.
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
        let rendering: CMYKColorTransform.Rendering
        let profile: [UInt8]
        let transform: CMYKColorTransform

        func matches(_ profile: [UInt8], _ inverted: Bool, _ rendering: CMYKColorTransform.Rendering) -> Bool {
            guard self.inverted == inverted, self.rendering == rendering, self.profile.count == profile.count else {
                return false
            }
            // memcmp: a press profile is 0.5-0.7 MB, compared on every CMYK decode (Array's ==
            // went a byte at a time: 2 % of a 500x333 CMYK thumbnail).
            return self.profile.withUnsafeBytes { a in
                profile.withUnsafeBytes { b in
                    guard let x = a.baseAddress, let y = b.baseAddress else { return a.count == b.count }
                    return memcmp(x, y, a.count) == 0
                }
            }
        }
    }

    private let lock = NSLock()
    /// Most recently used last.
    private var entries: [Entry] = []
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// The transform for `profile`, `inverted` and `rendering`, from the cache or newly built
    /// (and cached when the profile is small enough).
    func transform(
        for profile: [UInt8], inverted: Bool, rendering: CMYKColorTransform.Rendering = .perceptual
    ) -> Result<CMYKColorTransform, CMYKColorTransform.Failure> {
        if let hit = lookUp(profile, inverted: inverted, rendering: rendering) { return .success(hit) }
        let made = CMYKColorTransform.make(profile: profile, inverted: inverted, rendering: rendering)
        if case .success(let transform) = made, profile.count <= Self.maximumProfileBytes {
            lock.withLock {
                guard !entries.contains(where: { $0.matches(profile, inverted, rendering) }) else { return }
                if entries.count >= capacity { entries.removeFirst() }
                entries.append(Entry(inverted: inverted, rendering: rendering, profile: profile, transform: transform))
            }
        }
        return made
    }

    /// Entries held now (for tests).
    var count: Int { lock.withLock { entries.count } }

    private func lookUp(
        _ profile: [UInt8], inverted: Bool, rendering: CMYKColorTransform.Rendering
    ) -> CMYKColorTransform? {
        lock.withLock {
            guard let index = entries.firstIndex(where: { $0.matches(profile, inverted, rendering) }) else {
                return nil
            }
            let entry = entries.remove(at: index)
            entries.append(entry)
            return entry.transform
        }
    }
}
