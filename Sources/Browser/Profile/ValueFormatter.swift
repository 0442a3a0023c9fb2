import ODataCore

/// Turns property values into display text, and fills `{property:format}` templates.
///
/// Formats: `date` (2009-10-31), `datetime` (2009-10-31 17:08), `year`, `grouped`
/// (12,345), `money` (1,234.50). Without a format, a value is shown in the most
/// natural form for its type; an `Edm.DateTimeOffset` always with its offset
/// (2021-01-24 23:05 -12:00). The result is plain text; the terminal layer
/// sanitises it before it reaches a cell.
public enum ValueFormatter {
    /// The display text of one value.
    public static func format(_ value: ODataValue, as format: String? = nil) -> String {
        switch (value, format) {
        case (.null, _): return ""
        case (.dateTime(let instant), "year"), (.dateTimeOffset(let instant), "year"):
            return pad(instant.components.year, 4)
        case (.dateTime(let instant), "date"), (.dateTimeOffset(let instant), "date"):
            return String(instant.iso8601(withOffset: false).prefix(10))
        case (.dateTimeOffset(let instant), _):
            // The wall-clock time it was written in, and that offset: never a silent conversion.
            let text = instant.iso8601(withOffset: false)
            return text.prefix(10) + " " + text.dropFirst(11).prefix(5) + " " + offsetText(instant.offsetMinutes)
        case (.dateTime(let instant), _):
            let text = instant.iso8601(withOffset: false)
            let dateAndTime = text.prefix(10) + " " + text.dropFirst(11).prefix(5)
            return text.dropFirst(11).hasPrefix("00:00:00") && format != "datetime"
                ? String(text.prefix(10)) : String(dateAndTime)
        case (.int(let number), "grouped"), (.int(let number), "money"):
            return grouped(String(number)) + (format == "money" ? ".00" : "")
        case (.decimal(let text), "money"):
            return money(text)
        case (.decimal(let text), "grouped"):
            return grouped(text)
        case (.double(let number), "money"):
            return money(String(format: number))
        case (.bool(let flag), _): return flag ? "yes" : "no"
        case (.int(let number), _): return String(number)
        case (.decimal(let text), _): return text
        case (.double(let number), _): return String(format: number)
        case (.string(let text), _): return text
        case (.guid(let text), _): return text
        case (.time(let duration), _): return duration.clockText
        case (.binary(let data), _): return "(\(data.count) bytes)"
        case (.complex(let members), _):
            return members.map { $0.name + ": " + Self.format($0.value) }.joined(separator: ", ")
        case (.collection(let items), _):
            return items.map { Self.format($0) }.joined(separator: ", ")
        }
    }

    /// `+05:30`, `-12:00`; `UTC` for a zero offset or none (an instant without one reads as UTC).
    static func offsetText(_ minutes: Int?) -> String {
        guard let minutes, minutes != 0 else { return "UTC" }
        return (minutes < 0 ? "-" : "+") + pad(abs(minutes) / 60, 2) + ":" + pad(abs(minutes) % 60, 2)
    }

    /// Fills `{name}` and `{name:format}` placeholders from `lookup`; unknown names become empty.
    public static func fill(_ template: String, _ lookup: (String) -> ODataValue?) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let field = rest[rest.index(after: open)..<close]
            let parts = field.split(separator: ":", maxSplits: 1)
            let name = parts.first.map(String.init) ?? ""
            result += lookup(name).map { format($0, as: parts.count > 1 ? String(parts[1]) : nil) } ?? ""
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result.trimmingBlankEdges
    }

    /// Property names a template refers to (for `$select` and for knowing what a row needs).
    public static func fields(of template: String) -> [String] {
        var names: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let field = rest[rest.index(after: open)..<close]
            if let name = field.split(separator: ":").first, !names.contains(String(name)) {
                names.append(String(name))
            }
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    static func grouped(_ digits: String) -> String {
        let negative = digits.hasPrefix("-")
        let body = negative ? String(digits.dropFirst()) : digits
        let integer = body.split(separator: ".", maxSplits: 1).first.map(String.init) ?? body
        let fraction = body.contains(".") ? "." + (body.split(separator: ".", maxSplits: 1).last ?? "") : ""
        var groups: [String] = []
        var remaining = Substring(integer)
        while remaining.count > 3 {
            groups.insert(String(remaining.suffix(3)), at: 0)
            remaining = remaining.dropLast(3)
        }
        groups.insert(String(remaining), at: 0)
        return (negative ? "-" : "") + groups.joined(separator: ",") + fraction
    }

    /// Two decimal places, rounded half away from zero, grouped.
    static func money(_ decimalText: String) -> String {
        let negative = decimalText.hasPrefix("-")
        let body = negative ? String(decimalText.dropFirst()) : decimalText
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        var integer = Array(parts.first.map(String.init) ?? "0")
        var fraction = Array(parts.count > 1 ? String(parts[1]) : "")
        while fraction.count < 3 { fraction.append("0") }
        var cents = Array(fraction.prefix(2))
        if let third = fraction[2].wholeNumberValue, third >= 5 {
            // Carry through the cents and the integer part.
            var digits = integer + cents
            var index = digits.count - 1
            while index >= 0 {
                if digits[index] == "9" {
                    digits[index] = "0"
                    index -= 1
                } else {
                    digits[index] = Character(String((digits[index].wholeNumberValue ?? 0) + 1))
                    break
                }
            }
            if index < 0 { digits.insert("1", at: 0) }
            integer = Array(digits.dropLast(2))
            cents = Array(digits.suffix(2))
        }
        let text = grouped(String(integer.isEmpty ? ["0"] : integer)) + "." + String(cents)
        return (negative && text != "0.00" ? "-" : "") + text
    }
}

extension String {
    /// `String(describing:)` of a Double without a trailing `.0` for whole numbers.
    init(format number: Double) {
        if number.isFinite, number == number.rounded(), abs(number) < 1e15 {
            self = String(Int64(number))
        } else {
            self = String(describing: number)
        }
    }

    var trimmingBlankEdges: String {
        var slice = Substring(self)
        while slice.first == " " { slice = slice.dropFirst() }
        while slice.last == " " { slice = slice.dropLast() }
        return String(slice)
    }
}

extension ODataDuration {
    /// `02:39:44`.
    var clockText: String {
        let ms = abs(milliseconds)
        return (milliseconds < 0 ? "-" : "") + pad(Int(ms / 3_600_000), 2) + ":" + pad(Int(ms / 60_000 % 60), 2) + ":"
            + pad(Int(ms / 1000 % 60), 2)
    }
}

private func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}
