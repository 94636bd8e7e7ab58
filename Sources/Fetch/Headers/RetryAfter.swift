import Foundation

/// The wait a Retry-After header asks for: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
///
///     RetryAfter.delay(from: "1")                                  // .seconds(1)
///     RetryAfter.delay(from: "Wed, 21 Oct 2015 07:28:00 GMT", now: …)
enum RetryAfter {
    static func delay(from value: String, now: Date = Date()) -> Duration? {
        let value = value.trimmingCharacters(in: .whitespaces)
        if !value.isEmpty, value.allSatisfy(\.isASCIIDigit) {
            guard let seconds = Int(value) else { return .seconds(Int.max / 2) }
            return .seconds(seconds)
        }
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: value) {
                let seconds = max(0, date.timeIntervalSince(now))
                return .milliseconds(Int64((seconds * 1000).rounded(.up)))
            }
        }
        return nil
    }
}
