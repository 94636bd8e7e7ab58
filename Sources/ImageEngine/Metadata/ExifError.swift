import MediaTypes

/// Why the Exif orientation could not be read. Every case says where in the file it went wrong.
///
///     do { _ = try ExifOrientation.read(jpeg: bytes) } catch { print(error) }
public enum ExifError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The JPEG marker structure itself is broken.
    case jpeg(JPEGSegments.Failure)
    /// The TIFF header does not start with `II` or `MM`.
    case badByteOrder(offset: Int, found: UInt16)
    /// The TIFF magic number after the byte order is not 42.
    case badMagic(offset: Int, found: UInt16)
    /// An offset or count inside the Exif block points outside it.
    case outOfBounds(what: String, offset: Int, wanted: Int, blockLength: Int)
    /// The orientation tag has a type or count other than one SHORT.
    case badOrientationEntry(type: UInt16, count: UInt32, offset: Int)

    public var description: String {
        switch self {
        case .jpeg(let failure):
            "cannot walk the JPEG markers to find Exif: \(failure); the file is damaged, re-export it"
        case .badByteOrder(let offset, let found):
            "Exif TIFF header at byte \(offset) has byte order 0x\(String(found, radix: 16)), expected II or MM; the Exif block is damaged, strip it"
        case .badMagic(let offset, let found):
            "Exif TIFF header at byte \(offset) has magic \(found), expected 42; the Exif block is damaged, strip it"
        case .outOfBounds(let what, let offset, let wanted, let blockLength):
            "Exif \(what) wants \(wanted) bytes at offset \(offset) of a \(blockLength)-byte block; the Exif block is truncated or lies, strip it"
        case .badOrientationEntry(let type, let count, let offset):
            "Exif orientation tag at byte \(offset) has type \(type) and count \(count), expected one SHORT; strip the Exif block"
        }
    }
}
