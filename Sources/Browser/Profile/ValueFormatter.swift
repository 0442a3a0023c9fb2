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
        case (.decimal(let text), let format?) where format.hasPrefix("places"):
            // `places0` to `places3`: a decimal of that scale, grouped, to that many places.
            guard let places = Int(format.dropFirst("places".count)), (0...3).contains(places) else { return text }
            return rounded(text, places: places)
        case (.double(let number), "money"):
            return money(String(format: number))
        case (.string(let text), "flags"):
            // An enum's flags as the service sends them (`Read,Write`), read as a list.
            return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
        case (.bool(let flag), _): return flag ? "yes" : "no"
        case (.int(let number), _): return String(number)
        case (.decimal(let text), _): return text
        case (.double(let number), _): return String(format: number)
        case (.string(let text), _): return text
        case (.guid(let text), _): return text
        case (.time(let duration), _): return duration.clockText
        case (.binary(let data), _): return "(\(data.count) bytes)"
        case (.complex, _) where GeoShape(value) != nil:
            // A place or a shape (GeoJSON), as a person reads one; the GeoJSON itself in the full-value view.
            return GeoShape(value)?.description ?? ""
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
    ///
    /// A format may name another value (a property, or a code in quotes), as the service's annotations relate
    /// them: `{status:text=statusText}` ("In Process (P)"; `textlast`: "P (In Process)", `textonly`: "In Process"),
    /// `{amount:currency=currencyCode}` ("1,234.50 EUR", decimals as the currency has them) and
    /// `{weight:unit='KG'}` ("12.5 KG").
    public static func fill(_ template: String, _ lookup: (String) -> ODataValue?) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let field = rest[rest.index(after: open)..<close]
            let parts = field.split(separator: ":", maxSplits: 1)
            let name = parts.first.map(String.init) ?? ""
            let format = parts.count > 1 ? String(parts[1]) : nil
            if let format, let equals = format.firstIndex(of: "=") {
                let argument = String(format[format.index(after: equals)...])
                let other: String? =
                    argument.hasPrefix("'") && argument.hasSuffix("'") && argument.count >= 2
                    ? String(argument.dropFirst().dropLast()) : lookup(argument).map { Self.format($0) }
                result += lookup(name).map { related($0, String(format[..<equals]), other) } ?? ""
            } else {
                result += lookup(name).map { Self.format($0, as: format) } ?? ""
            }
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result.trimmingBlankEdges
    }

    /// A value shown with the one an annotation relates it to (see ``fill(_:_:)``).
    static func related(_ value: ODataValue, _ kind: String, _ other: String?) -> String {
        let code = format(value)
        guard value != .null else { return "" }
        let other = other.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
        switch kind {
        case "text": return other.map { "\($0) (\(code))" } ?? code
        case "textlast": return other.map { "\(code) (\($0))" } ?? code
        case "textonly": return other ?? code
        case "currency":
            let number: String? =
                switch value {
                case .decimal(let text): text
                case .int(let number): String(number)
                case .double(let number): decimalText(number)
                default: nil
                }
            guard let number else { return code }
            let places = other.map(currencyDecimals) ?? 2
            return rounded(number, places: places) + (other.map { " " + $0 } ?? "")
        case "unit": return code + (other.map { " " + $0 } ?? "")
        default: return code
        }
    }

    /// A double as plain decimal text to four places (`1234.5000`), never in exponent form; nil when it is not
    /// finite or too large to hold exactly that way.
    static func decimalText(_ number: Double) -> String? {
        guard number.isFinite, abs(number) < 1e14 else { return nil }
        let scaled = Int64((abs(number) * 10_000).rounded())
        let fraction = String(scaled % 10_000)
        return (number < 0 && scaled != 0 ? "-" : "") + String(scaled / 10_000) + "."
            + String(repeating: "0", count: 4 - fraction.count) + fraction
    }

    /// The decimals an amount in an ISO 4217 currency is shown with (two but for the currencies with none or
    /// three minor units).
    static func currencyDecimals(_ code: String) -> Int {
        let none: Set<String> = [
            "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF",
            "XOF", "XPF",
        ]
        let three: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]
        let upper = code.uppercased()
        return none.contains(upper) ? 0 : three.contains(upper) ? 3 : 2
    }

    /// Property names a template refers to (for `$select` and for knowing what a row needs).
    public static func fields(of template: String) -> [String] {
        var names: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let field = rest[rest.index(after: open)..<close]
            let parts = field.split(separator: ":", maxSplits: 1)
            if let name = parts.first, !names.contains(String(name)) {
                names.append(String(name))
            }
            // `{amount:currency=currencyCode}` needs the currency too (a code in quotes needs nothing).
            if parts.count > 1, let equals = parts[1].firstIndex(of: "="), !parts[1][equals...].contains("'") {
                let other = String(parts[1][parts[1].index(after: equals)...])
                if !other.isEmpty, !names.contains(other) { names.append(other) }
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
    static func money(_ decimalText: String) -> String { rounded(decimalText, places: 2) }

    /// `places` decimal places (0 to 3), rounded half away from zero, grouped.
    static func rounded(_ decimalText: String, places: Int) -> String {
        let places = min(3, max(0, places))
        let negative = decimalText.hasPrefix("-")
        let body = negative ? String(decimalText.dropFirst()) : decimalText
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let integer = Array(parts.first.map(String.init) ?? "0").filter(\.isNumber)
        var fraction = Array(parts.count > 1 ? String(parts[1]) : "").filter(\.isNumber)
        while fraction.count < places + 1 { fraction.append("0") }
        // The kept digits, integer and fraction together, rounded on the first digit dropped.
        var digits = (integer.isEmpty ? ["0"] : integer) + fraction.prefix(places)
        if let next = fraction[places].wholeNumberValue, next >= 5 {
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
        }
        let whole = grouped(String(digits.dropLast(places)))
        let text = places == 0 ? whole : whole + "." + String(digits.suffix(places))
        let zero = text.allSatisfy { $0 == "0" || $0 == "." || $0 == "," }
        return (negative && !zero ? "-" : "") + text
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
