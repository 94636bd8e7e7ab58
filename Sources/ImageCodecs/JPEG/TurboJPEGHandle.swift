internal import CTurboJPEG
import Foundation
import MediaTypes

/// Owns one `tjhandle`: `init` throws when TurboJPEG cannot make one, `deinit` destroys it.
///
///     let handle = try TurboJPEGHandle(.decompress)
///     let message = handle.lastError
///
/// A handle is used by one thread at a time (the pool hands it out exclusively); that is why
/// the class is `@unchecked Sendable`.
final class TurboJPEGHandle: @unchecked Sendable {
    enum Kind { case compress, decompress }

    let raw: tjhandle
    let kind: Kind
    /// Cleared after any failed call: TurboJPEG 2.1 does not reset libjpeg's marker reader
    /// when a header read fails, so a handle that saw an error ("Bogus marker length" on the
    /// next, valid file) must not be reused.
    var isReusable = true

    init(_ kind: Kind) throws(CodecError) {
        let made = kind == .compress ? tjInitCompress() : tjInitDecompress()
        guard let made else {
            // With no handle, TurboJPEG keeps the reason in a global string.
            let reason = String(cString: tjGetErrorStr2(nil))
            throw kind == .compress
                ? .encodeFailed(codec: JPEGCodec.name, message: reason)
                : .corrupt(codec: JPEGCodec.name, message: "cannot create a decompressor: \(reason)")
        }
        self.raw = made
        self.kind = kind
    }

    deinit { tjDestroy(raw) }

    /// The last error or warning, copied out of the handle.
    var lastError: String { String(cString: tjGetErrorStr2(raw)) }

    /// Records a failed call and returns its message.
    func failure() -> String {
        isReusable = false
        return lastError
    }

    /// True when the last failure was only a warning (TJERR_WARNING): output was produced.
    var lastErrorIsWarning: Bool { tjGetErrorCode(raw) == Int32(TJERR_WARNING.rawValue) }
}

/// A small lock-protected pool of decompress handles, so hot paths reuse a handle instead of
/// allocating TurboJPEG's state per image. Holds at most `capacity` idle handles.
///
///     let image = try TurboJPEGPool.decompressors.with { handle in ... }
final class TurboJPEGPool: @unchecked Sendable {
    static let decompressors = TurboJPEGPool(kind: .decompress, capacity: 16)
    static let compressors = TurboJPEGPool(kind: .compress, capacity: 8)

    private let lock = NSLock()
    private var idle: [TurboJPEGHandle] = []
    private let kind: TurboJPEGHandle.Kind
    private let capacity: Int

    init(kind: TurboJPEGHandle.Kind, capacity: Int) {
        self.kind = kind
        self.capacity = capacity
    }

    /// Runs `body` with a handle no other thread is using, then returns it to the pool
    /// unless the body threw or a call on it failed.
    func with<R>(_ body: (TurboJPEGHandle) throws(CodecError) -> R) throws(CodecError) -> R {
        let handle = try checkOut()
        let result = try body(handle)
        checkIn(handle)
        return result
    }

    /// `with(_:)` for decoding `jpeg`: a pooled handle when the file brings its own tables,
    /// else a fresh one used once. libjpeg keeps Huffman and quantisation tables across images
    /// on one decompressor (for abbreviated Motion-JPEG streams) and fills in defaults only where
    /// none are loaded, so a file without DHT or DQT (`mjpeg.jpg` in the corpus) decoded on a
    /// reused handle gets the previous image's tables: "bad Huffman code", or wrong pixels.
    func with<R>(decoding markers: JPEGHeader, _ body: (TurboJPEGHandle) throws(CodecError) -> R) throws(CodecError)
        -> R
    {
        guard !markers.bringsItsOwnTables else { return try with(body) }
        return try body(try TurboJPEGHandle(kind))
    }

    /// True when DQT and DHT segments come before the first scan (`JPEGHeader.bringsItsOwnTables`).
    static func bringsItsOwnTables(_ jpeg: [UInt8]) -> Bool { JPEGHeader(jpeg).bringsItsOwnTables }

    private func checkOut() throws(CodecError) -> TurboJPEGHandle {
        let reused: TurboJPEGHandle? = lock.withLock { idle.popLast() }
        if let reused { return reused }
        return try TurboJPEGHandle(kind)
    }

    private func checkIn(_ handle: TurboJPEGHandle) {
        lock.withLock {
            if handle.isReusable, idle.count < capacity { idle.append(handle) }
        }
    }
}
