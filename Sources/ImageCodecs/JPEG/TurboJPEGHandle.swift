internal import CTurboJPEG
import Foundation
import MediaTypes

/// Owns one TurboJPEG compressor `tjhandle`: `init` throws when TurboJPEG cannot make one,
/// `deinit` destroys it. (Decoding runs on libjpeg's scanline API, `JPEGRowDecoder`.)
///
///     let handle = try TurboJPEGHandle()
///     let message = handle.lastError
///
/// A handle is used by one thread at a time (the pool hands it out exclusively); that is why
/// the class is `@unchecked Sendable`.
final class TurboJPEGHandle: @unchecked Sendable {
    let raw: tjhandle
    /// Cleared after any failed call, and after a progressive encode (see `JPEGCodec.encode`):
    /// such a handle keeps state that corrupts the next job, so it is not reused.
    var isReusable = true

    init() throws(CodecError) {
        guard let made = tjInitCompress() else {
            // With no handle, TurboJPEG keeps the reason in a global string.
            throw .encodeFailed(codec: JPEGCodec.name, message: String(cString: tjGetErrorStr2(nil)))
        }
        self.raw = made
    }

    deinit { tjDestroy(raw) }

    /// The last error or warning, copied out of the handle.
    var lastError: String { String(cString: tjGetErrorStr2(raw)) }

    /// Records a failed call and returns its message.
    func failure() -> String {
        isReusable = false
        return lastError
    }
}

/// A small lock-protected pool of compress handles, so encodes reuse a handle instead of
/// allocating TurboJPEG's state per image. Holds at most `capacity` idle handles.
///
///     let jpeg = try TurboJPEGPool.compressors.with { handle in ... }
final class TurboJPEGPool: @unchecked Sendable {
    static let compressors = TurboJPEGPool(capacity: 8)

    private let lock = NSLock()
    private var idle: [TurboJPEGHandle] = []
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Runs `body` with a handle no other thread is using, then returns it to the pool
    /// unless the body threw or a call on it failed.
    func with<R>(_ body: (TurboJPEGHandle) throws(CodecError) -> R) throws(CodecError) -> R {
        let handle = try checkOut()
        let result = try body(handle)
        checkIn(handle)
        return result
    }

    /// True when DQT and DHT segments come before the first scan (`JPEGHeader.bringsItsOwnTables`).
    /// Each decode makes its own libjpeg decompressor, so a tableless Motion-JPEG frame cannot
    /// inherit another file's tables; `DamageTests` asks, to show such a frame is refused.
    static func bringsItsOwnTables(_ jpeg: [UInt8]) -> Bool { JPEGHeader(jpeg).bringsItsOwnTables }

    private func checkOut() throws(CodecError) -> TurboJPEGHandle {
        let reused: TurboJPEGHandle? = lock.withLock { idle.popLast() }
        if let reused { return reused }
        return try TurboJPEGHandle()
    }

    private func checkIn(_ handle: TurboJPEGHandle) {
        lock.withLock {
            if handle.isReusable, idle.count < capacity { idle.append(handle) }
        }
    }
}
