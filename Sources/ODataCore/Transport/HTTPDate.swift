import Foundation

/// HTTP dates, read and written by hand (no `DateFormatter`, which is costly to make and not safe to share).
///
/// Writes RFC 9110's IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`). Reads that, RFC 850
/// (`Sunday, 06-Nov-94 08:49:37 GMT`), asctime (`Sun Nov  6 08:49:37 1994`), and the dashed form some servers
/// send in cookies (`Sun, 06-Nov-1994 08:49:37 GMT`). A two-digit year is 1970–2069 (RFC 6265).
public enum HTTPDate {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    public static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds.floorDivided(by: 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilCalendar.date(fromDays: days)
        let weekday = weekdays[(days + 4).floorModulo(7)]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(day)) \(months[month - 1].capitalized) \(year) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    public static func parse(_ text: String) -> Date? {
        var tokens = text.split(whereSeparator: { $0 == " " || $0 == "-" || $0 == "," || $0 == "\t" }).map {
            $0.lowercased()
        }
        if let zone = tokens.last, zone == "gmt" || zone == "utc" || zone == "z" { tokens.removeLast() }
        var month: Int?
        var time: [Int]?
        var numbers: [Substring] = []
        for token in tokens {
            if token.contains(":") {
                let parts = token.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
                guard parts.count == 3, parts.allSatisfy({ $0 != nil }), time == nil else { return nil }
                time = parts.map { $0! }
            } else if let index = months.firstIndex(of: String(token.prefix(3))), token.allSatisfy(\.isLetter),
                month == nil, token.count == 3 || token.hasPrefix(fullMonthName(index))
            {
                month = index + 1
            } else if token.allSatisfy(\.isNumber) {
                numbers.append(Substring(token))
            } else if !token.allSatisfy(\.isLetter) {
                return nil  // neither a weekday, a month, a number nor a time
            }
        }
        guard let month, let time, numbers.count == 2 else { return nil }
        // The day has one or two digits and comes before the year in every form.
        let (dayText, yearText) = numbers[0].count <= 2 ? (numbers[0], numbers[1]) : (numbers[1], numbers[0])
        guard let day = Int(dayText), var year = Int(yearText), (1...31).contains(day),
            (0...23).contains(time[0]), (0...59).contains(time[1]), (0...60).contains(time[2])
        else { return nil }
        if yearText.count <= 2 { year += year < 70 ? 2000 : 1900 }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + time[0] * 3600 + time[1] * 60 + time[2]))
    }

    private static func fullMonthName(_ index: Int) -> String {
        [
            "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
            "november", "december",
        ][index]
    }
}

extension Int {
    fileprivate func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    fileprivate func floorModulo(_ divisor: Int) -> Int { self - floorDivided(by: divisor) * divisor }
}
