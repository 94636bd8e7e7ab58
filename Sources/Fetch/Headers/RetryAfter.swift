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
        guard let date = HTTPDate.parse(value, now: now) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}

/// An HTTP-date (RFC 9110 §5.6.7) in its three forms, parsed by hand:
///
///     HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")    // IMF-fixdate
///     HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT")   // obsolete RFC 850
///     HTTPDate.parse("Sun Nov  6 08:49:37 1994")         // obsolete asctime
///
/// Not `DateFormatter`: on Linux its `date(from:)` leaks an NSCharacterSet on some inputs (found
/// by the `http` fuzz harness; the server chooses the header) and builds an ICU formatter per call.
enum HTTPDate {
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        guard text.utf8.count <= 64, text.allSatisfy(\.isASCII) else { return nil }
        let words = text.split(separator: " ").map(String.init)
        switch words.count {
        case 6:  // Sun, 06 Nov 1994 08:49:37 GMT
            guard words[0].hasSuffix(","), isWeekday(words[0].dropLast(), long: false), isGMT(words[5]),
                words[1].count == 2, words[3].count == 4,
                let day = number(words[1]), let month = month(words[2]), let year = number(words[3])
            else { return nil }
            return make(year: year, month: month, day: day, time: words[4])
        case 4:  // Sunday, 06-Nov-94 08:49:37 GMT
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard words[0].hasSuffix(","), isWeekday(words[0].dropLast(), long: true), isGMT(words[3]),
                parts.count == 3, parts[0].count == 2, parts[2].count == 2,
                let day = number(parts[0]), let month = month(parts[1]), let yy = number(parts[2])
            else { return nil }
            // Two-digit years: the most recent year with those digits not over 50 years ahead.
            let thisYear = Calendar(identifier: .gregorian).dateComponents(in: .gmt, from: now).year ?? 2000
            var year = thisYear - thisYear % 100 + yy
            if year > thisYear + 50 { year -= 100 }
            return make(year: year, month: month, day: day, time: words[2])
        case 5:  // Sun Nov  6 08:49:37 1994 (the double space before a one-digit day is split away)
            guard isWeekday(Substring(words[0]), long: false), (1...2).contains(words[2].count), words[4].count == 4,
                let month = month(words[1]), let day = number(words[2]), let year = number(words[4])
            else { return nil }
            return make(year: year, month: month, day: day, time: words[3])
        default:
            return nil
        }
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    private static func month(_ word: String) -> Int? {
        guard word.count == 3, let index = months.firstIndex(of: word.lowercased()) else { return nil }
        return index + 1
    }

    private static func isWeekday(_ word: Substring, long: Bool) -> Bool {
        let word = word.lowercased()
        return weekdays.contains { long ? $0 == word : $0.prefix(3) == word }
    }

    /// A field of ASCII digits only (`Int("+994")` would accept a sign).
    private static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int(text)
    }

    private static func isGMT(_ word: String) -> Bool { word == "GMT" || word == "UTC" }

    /// The instant, or nil for an impossible date or time (Feb 30, 24:00, a leap second is allowed).
    private static func make(year: Int, month: Int, day: Int, time: String) -> Date? {
        let hms = time.split(separator: ":", omittingEmptySubsequences: false)
        guard hms.count == 3, hms.allSatisfy({ $0.count == 2 }),
            let hour = number(String(hms[0])), let minute = number(String(hms[1])), let second = number(String(hms[2])),
            hour < 24, minute < 60, second <= 60, (1...9999).contains(year), day >= 1,
            day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
