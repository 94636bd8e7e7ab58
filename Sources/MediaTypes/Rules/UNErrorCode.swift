/// The error codes iOS gives when it refuses an attachment (UNErrorCode, attachment range).
///
///     UNErrorCode.invalidFileSize.rawValue  // 102
public enum UNErrorCode: Int, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// 100: the attachment URL is not a readable local file URL.
    case invalidURL = 100
    /// 101: the file is not a type iOS attaches (the format is not accepted, or unknown).
    case unrecognizedType = 101
    /// 102: the file is too large: over its category's byte cap (`AppleRules.byteCap(for:)`).
    /// This library also gives it to images whose header declares more pixels than the pixel
    /// budget, which iOS would attach but no one could decode.
    case invalidFileSize = 102
    /// 103: the file is not in the attachment data store.
    case notInDataStore = 103
    /// 104: iOS could not move the file into its attachment data store.
    case moveIntoDataStoreFailed = 104
    /// 105: the file has an accepted type but its data is corrupt: a broken header, or image
    /// data that does not decode.
    case corrupt = 105

    public var description: String {
        switch self {
        case .invalidURL: "100 invalid URL"
        case .unrecognizedType: "101 unrecognized type"
        case .invalidFileSize: "102 invalid file size"
        case .notInDataStore: "103 not in data store"
        case .moveIntoDataStoreFailed: "104 move into data store failed"
        case .corrupt: "105 corrupt"
        }
    }
}
