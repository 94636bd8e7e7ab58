/// The error codes iOS gives when it refuses an attachment (UNErrorCode, attachment range).
///
///     UNErrorCode.invalidFileSize.rawValue  // 102
public enum UNErrorCode: Int, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case invalidURL = 100
    case unrecognizedType = 101
    case invalidFileSize = 102
    case notInDataStore = 103
    case moveIntoDataStoreFailed = 104
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
