extension ODataInstant {
    /// Parses `/Date(ms)/`, `/Date(ms+mmmm)/` (the offset is four digits of *minutes*: `-0210` is −03:30) and
    /// their `\/Date(…)\/` spelling; returns nil for anything else.
    public init?(wireDate text: some StringProtocol) {
        var utf8 = Substring(text).utf8[...]
        if utf8.starts(with: "\\/Date(".utf8) {
            utf8 = utf8.dropFirst(7)
            guard utf8.last == UInt8(ascii: "/"), utf8.dropLast().last == UInt8(ascii: "\\") else { return nil }
            utf8 = utf8.dropLast(2)
        } else if utf8.starts(with: "/Date(".utf8) {
            utf8 = utf8.dropFirst(6)
            guard utf8.last == UInt8(ascii: "/") else { return nil }
            utf8 = utf8.dropLast()
        } else {
            return nil
        }
        guard utf8.last == UInt8(ascii: ")") else { return nil }
        utf8 = utf8.dropLast()
        // utf8 is now "-?digits([+-]dddd)?"
        var digitsEnd = utf8.startIndex
        if digitsEnd < utf8.endIndex, utf8[digitsEnd] == UInt8(ascii: "-") { digitsEnd = utf8.index(after: digitsEnd) }
        let firstDigit = digitsEnd
        while digitsEnd < utf8.endIndex, utf8[digitsEnd] &- UInt8(ascii: "0") < 10 {
            digitsEnd = utf8.index(after: digitsEnd)
        }
        guard digitsEnd > firstDigit,
            let milliseconds = Int64(String(decoding: utf8[utf8.startIndex..<digitsEnd], as: UTF8.self))
        else { return nil }
        let rest = utf8[digitsEnd...]
        if rest.isEmpty {
            self.init(millisecondsSince1970: milliseconds)
            return
        }
        guard rest.count == 5, let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
            rest.dropFirst().allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }),
            let minutes = Int(String(decoding: rest.dropFirst(), as: UTF8.self))
        else { return nil }
        self.init(millisecondsSince1970: milliseconds, offsetMinutes: sign == UInt8(ascii: "-") ? -minutes : minutes)
    }

    /// Parses ISO-8601 date-times as servers send them: `2009-11-01T12:00:00`,
    /// with optional fractional seconds (any precision, truncated to ms) and an
    /// optional `Z` or `±hh:mm` / `±hhmm` offset. No offset reads as UTC.
    public init?(iso8601 text: some StringProtocol) {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ width: Int) -> Int? {
            guard index + width <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + width] {
                guard byte &- UInt8(ascii: "0") < 10 else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += width
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
            index += 1
            return true
        }
        var negativeYear = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            negativeYear = true
            index += 1
        }
        guard let rawYear = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let year = negativeYear ? -rawYear : rawYear
        var hour = 0
        var minute = 0
        var second = 0
        var millisecond = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: " ") {
            index += 1
            guard let h = number(2), expect(":"), let m = number(2), h < 24 || (h == 24 && m == 0), m < 60 else {
                return nil
            }
            hour = h
            minute = m
            if expect(":") {
                guard let s = number(2), s < 61 else { return nil }
                second = s
                if expect(".") {
                    var scale = 100
                    var sawDigit = false
                    while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                        millisecond += Int(bytes[index] - UInt8(ascii: "0")) * scale
                        scale /= 10
                        sawDigit = true
                        index += 1
                    }
                    guard sawDigit else { return nil }
                }
            }
        }
        var offset: Int?
        if index < bytes.count {
            if bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
                offset = 0
                index += 1
            } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                let negative = bytes[index] == UInt8(ascii: "-")
                index += 1
                guard let oh = number(2) else { return nil }
                _ = expect(":")
                guard let om = number(2), oh < 24, om < 60 else { return nil }
                offset = (oh * 60 + om) * (negative ? -1 : 1)
            }
        }
        guard index == bytes.count else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64((offset ?? 0) * 60)
        self.init(millisecondsSince1970: seconds * 1000 + Int64(millisecond), offsetMinutes: offset)
    }

    /// Local wall-clock components in the instant's own offset (UTC when it has none).
    public var components: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int) {
        let local = millisecondsSince1970 + Int64((offsetMinutes ?? 0) * 60_000)
        let (daysSigned, msOfDay) = local.quotientAndRemainder(dividingBy: 86_400_000)
        let days = msOfDay < 0 ? daysSigned - 1 : daysSigned
        let ms = msOfDay < 0 ? msOfDay + 86_400_000 : msOfDay
        let civil = CivilCalendar.date(fromDays: Int(days))
        return (
            civil.year, civil.month, civil.day, Int(ms / 3_600_000), Int(ms / 60_000 % 60), Int(ms / 1000 % 60),
            Int(ms % 1000)
        )
    }

    /// ISO-8601 text: `2009-10-31T17:08:28.440` plus `Z`/offset when `withOffset` and known.
    public func iso8601(withOffset: Bool = true) -> String {
        let c = components
        var text = pad(c.year, 4) + "-" + pad(c.month, 2) + "-" + pad(c.day, 2) + "T"
        text += pad(c.hour, 2) + ":" + pad(c.minute, 2) + ":" + pad(c.second, 2)
        if c.millisecond != 0 { text += "." + pad(c.millisecond, 3) }
        if withOffset, let offsetMinutes {
            if offsetMinutes == 0 {
                text += "Z"
            } else {
                let magnitude = abs(offsetMinutes)
                text += (offsetMinutes < 0 ? "-" : "+") + pad(magnitude / 60, 2) + ":" + pad(magnitude % 60, 2)
            }
        }
        return text
    }

    /// The verbose-JSON wire form, `/Date(ms)/` or `/Date(ms+mmmm)/`.
    public var wireDate: String {
        guard let offsetMinutes else { return "/Date(\(millisecondsSince1970))/" }
        return "/Date(\(millisecondsSince1970)\(offsetMinutes < 0 ? "-" : "+")\(pad(abs(offsetMinutes), 4)))/"
    }
}

func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(abs(value))
    let sign = value < 0 ? "-" : ""
    return sign + String(repeating: "0", count: max(0, width - digits.count)) + digits
}

extension ODataDuration {
    /// Parses `PT02H39M44S` (ISO-8601 duration, optional days and fractional seconds) or `02:39:44(.fff)`.
    public init?(parsing text: some StringProtocol) {
        let string = String(text)
        if string.hasPrefix("PT") || string.hasPrefix("P") || string.hasPrefix("-P") {
            guard let value = Self.parseISODuration(string) else { return nil }
            self.init(milliseconds: value)
        } else {
            let parts = string.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 || parts.count == 3,
                let hours = Int64(parts[0]), let minutes = Int64(parts[1]), hours >= 0, (0..<60).contains(minutes),
                hours < 1_000_000_000  // beyond that the milliseconds overflow (found by fuzzing `$filter`)
            else { return nil }
            var milliseconds = (hours * 3600 + minutes * 60) * 1000
            if parts.count == 3 {
                guard let seconds = Double(parts[2]), seconds >= 0, seconds < 61,
                    parts[2].allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") })
                else { return nil }
                milliseconds += Int64((seconds * 1000).rounded())
            }
            self.init(milliseconds: milliseconds)
        }
    }

    private static func parseISODuration(_ text: String) -> Int64? {
        var rest = Substring(text)
        var sign: Int64 = 1
        if rest.hasPrefix("-") {
            sign = -1
            rest = rest.dropFirst()
        }
        guard rest.hasPrefix("P") else { return nil }
        rest = rest.dropFirst()
        var total: Double = 0
        var inTime = false
        var number = ""
        var sawComponent = false
        for character in rest {
            if character == "T" {
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
                continue
            }
            if character.isASCII, character.isNumber || character == "." {
                number.append(character)
                continue
            }
            guard let value = Double(number) else { return nil }
            number = ""
            sawComponent = true
            switch (character, inTime) {
            case ("D", false): total += value * 86_400
            case ("H", true): total += value * 3600
            case ("M", true): total += value * 60
            case ("S", true): total += value
            default: return nil
            }
        }
        guard number.isEmpty, sawComponent, total < 1e12 else { return nil }
        return sign * Int64((total * 1000).rounded())
    }

    /// `PT02H39M44S` form (with `.fff` seconds when needed).
    public var iso8601: String {
        let negative = milliseconds < 0
        let ms = abs(milliseconds)
        var text =
            (negative ? "-" : "") + "PT" + pad(Int(ms / 3_600_000), 2) + "H" + pad(Int(ms / 60_000 % 60), 2) + "M"
        text += pad(Int(ms / 1000 % 60), 2)
        if ms % 1000 != 0 { text += "." + pad(Int(ms % 1000), 3) }
        return text + "S"
    }
}
