/// A growable, uninitialised scratch allocation reused across images on one thread.
///
///     let row = accumulator.pointer(count: width * 4)  // valid until the next call
///
/// Grows only; never shrinks, so steady-state resizing allocates nothing here.
final class ScratchBuffer<Element: BitwiseCopyable> {
    private var storage: UnsafeMutablePointer<Element>?
    private var capacity = 0

    init() {}

    /// Bytes held now (the largest request so far, give or take the growth step).
    var bytes: Int { capacity * MemoryLayout<Element>.stride }

    deinit { storage?.deallocate() }

    /// At least `count` elements; contents are unspecified.
    func pointer(count: Int) -> UnsafeMutablePointer<Element> {
        if count > capacity || storage == nil {
            storage?.deallocate()
            capacity = max(count, capacity + capacity / 2, 1)
            storage = .allocate(capacity: capacity)
        }
        return storage!
    }
}
