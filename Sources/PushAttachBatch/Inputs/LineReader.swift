import PushAttach
import SystemSupport
/// Reads a file descriptor line by line through one fixed buffer, so a 10,000-line list never
/// sits in memory whole.
///
///     let reader = LineReader(descriptor: fd, name: "list.txt")
///     while let line = try reader.nextLine() { … }
///
/// Lines end at `\n`; a trailing `\r` is kept for the caller to strip. A line longer than
/// `maxLineBytes` is skipped to its end and reported as `.tooLong`.
final class LineReader {
    enum Line: Equatable {
        case text([UInt8])
        case tooLong(bytes: Int)
    }

    let name: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let chunkSize: Int
    private let maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private(set) var atEnd = false

    init(
        descriptor: Int32, name: String, ownsDescriptor: Bool = true, chunkSize: Int = 64 * 1024,
        maxLineBytes: Int = 64 * 1024
    ) {
        self.descriptor = descriptor
        self.name = name
        self.ownsDescriptor = ownsDescriptor
        self.chunkSize = chunkSize
        self.maxLineBytes = maxLineBytes
    }

    deinit { if ownsDescriptor { try? SystemCall.close(descriptor, path: name) } }

    /// Buffers until a newline appears within `limit` bytes or the input ends; returns the
    /// unread bytes. For deciding how to parse a source from its first line.
    func peekFirstLine(limit: Int) throws(ContainerError) -> ArraySlice<UInt8> {
        while !atEnd, buffer.count - start < limit, !buffer[start...].contains(0x0A) { try fill() }
        return buffer[start...]
    }

    func nextLine() throws(ContainerError) -> Line? {
        var searched = start
        while true {
            if let newline = buffer[searched...].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                return line.count > maxLineBytes ? .tooLong(bytes: line.count) : .text(line)
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                return line.count > maxLineBytes ? .tooLong(bytes: line.count) : .text(line)
            }
            if buffer.count - start > maxLineBytes { return try skipLongLine() }
            searched = buffer.count
            let before = start
            try fill()
            searched -= before - start  // fill() may compact the buffer
        }
    }

    /// Everything left, or nil when it exceeds `limit` bytes.
    func readToEnd(limit: Int) throws(ContainerError) -> [UInt8]? {
        while !atEnd {
            if buffer.count - start > limit { return nil }
            try fill()
        }
        guard buffer.count - start <= limit else { return nil }
        defer { start = buffer.count }
        return Array(buffer[start...])
    }

    private func skipLongLine() throws(ContainerError) -> Line {
        var skipped = 0
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                skipped += newline - start
                start = newline + 1
                return .tooLong(bytes: skipped)
            }
            skipped += buffer.count - start
            start = buffer.count
            if atEnd { return .tooLong(bytes: skipped) }
            try fill()
        }
    }

    /// One read(2) of up to `chunkSize` bytes, compacting consumed bytes first.
    private func fill() throws(ContainerError) {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunkSize))
        let descriptor = descriptor
        let chunkSize = chunkSize
        let name = name
        let result: Result<Int, ContainerError> = buffer.withUnsafeMutableBytes { raw in
            let target = UnsafeMutableRawBufferPointer(rebasing: raw[old..<(old + chunkSize)])
            return Result { () throws(ContainerError) in try SystemCall.read(descriptor, into: target, path: name) }
        }
        let count = (try? result.get()) ?? 0
        buffer.removeLast(chunkSize - count)
        if case .failure(let error) = result { throw error }
        if count == 0 { atEnd = true }
    }
}
