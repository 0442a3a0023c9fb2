import Foundation

/// URI literals of OData v2 (MS-ODATA §2.2.2) and v4 (OData ABNF): formatting and parsing.
///
/// Formatting produces the *unencoded* literal (`'O''Neil'`, `10248L`);
/// URL building percent-encodes it afterwards.
public enum ODataLiteral {
    /// The literal for `value`, spelled for `type` when the declared type is known
    /// (suffixes such as `L`, `M`, `d`, `f` in v2); nil for values without a literal form.
    ///
    /// v4 spells most literals bare: `10248`, `1.5`, `0c4b…9e11`, `2025-08-30`, `2025-08-30T10:00:00Z`, `13:20:00`;
    /// strings are quoted the same way in both.
    public static func format(
        _ value: ODataValue, as type: EdmPrimitiveType? = nil, dialect: ODataDialect = .v2
    ) -> String? {
        if dialect == .v4 { return formatVersion4(value, as: type) }
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number):
            switch type {
            case .int64: return "\(number)L"
            case .decimal: return "\(number)M"
            case .double: return "\(number)d"
            case .single: return "\(number)f"
            case .string: return quote(String(number))
            default: return String(number)
            }
        case .decimal(let text): return text + (type == .double ? "d" : type == .single ? "f" : "M")
        case .double(let number):
            guard number.isFinite else { return number.isNaN ? "NaNd" : (number < 0 ? "-INFd" : "INFd") }
            return "\(number)" + (type == .single ? "f" : type == .decimal ? "M" : "d")
        case .string(let text): return quote(text)
        case .guid(let text): return "guid'\(text)'"
        case .dateTime(let instant): return "datetime'\(instant.iso8601(withOffset: false))'"
        case .dateTimeOffset(let instant):
            var withOffset = instant
            if withOffset.offsetMinutes == nil { withOffset.offsetMinutes = 0 }
            return "datetimeoffset'\(withOffset.iso8601())'"
        case .time(let duration): return "time'\(duration.iso8601)'"
        case .binary(let data): return "X'" + data.map { pad2hex($0) }.joined() + "'"
        case .complex, .collection: return nil
        }
    }

    static func formatVersion4(_ value: ODataValue, as type: EdmPrimitiveType?) -> String? {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return type == .string ? quote(String(number)) : String(number)
        case .decimal(let text): return text
        case .double(let number):
            guard number.isFinite else { return number.isNaN ? "NaN" : (number < 0 ? "-INF" : "INF") }
            return "\(number)"
        case .string(let text): return quote(text)
        case .guid(let text): return text
        case .dateTime(let instant):
            let iso = instant.iso8601(withOffset: false)
            return type == .date ? String(iso.prefix(10)) : iso + "Z"
        case .dateTimeOffset(let instant):
            var withOffset = instant
            if withOffset.offsetMinutes == nil { withOffset.offsetMinutes = 0 }
            return withOffset.iso8601()
        case .time(let duration):
            guard type == .timeOfDay || type == .time, duration.milliseconds >= 0, duration.milliseconds < 86_400_000
            else { return "duration'\(duration.iso8601)'" }
            let ms = Int(duration.milliseconds)
            var text = pad(ms / 3_600_000, 2) + ":" + pad(ms / 60_000 % 60, 2) + ":" + pad(ms / 1000 % 60, 2)
            if ms % 1000 != 0 { text += "." + pad(ms % 1000, 3) }
            return text
        case .binary(let data):
            let base64url = data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
            return "binary'\(base64url)'"
        case .complex, .collection: return nil
        }
    }

    /// A single-quoted string literal with embedded quotes doubled.
    public static func quote(_ text: String) -> String {
        // By scalar: a quote followed by a combining mark is still a quote to double.
        var quoted = String.UnicodeScalarView()
        quoted.append("'")
        for scalar in text.unicodeScalars {
            quoted.append(scalar)
            if scalar == "'" { quoted.append(scalar) }
        }
        quoted.append("'")
        return String(quoted)
    }

    /// Parses one (already percent-decoded) literal: `1`, `10248L`, `1.5M`, `2.0d`, `'O''Neil'`,
    /// `guid'…'`, `datetime'…'`, `datetimeoffset'…'`, `time'…'`, `X'…'`/`binary'…'`, `true`, `null`.
    public static func parse(_ text: some StringProtocol) -> ODataValue? {
        let text = Substring(text)
        let scalars = text.unicodeScalars
        guard let first = scalars.first else { return nil }
        if first == "'" {
            return unquote(text).map(ODataValue.string)
        }
        if let quote = scalars.firstIndex(of: "'") {
            let prefix = Substring(scalars[..<quote]).lowercased()
            guard let body = unquote(Substring(scalars[quote...])) else { return nil }
            switch prefix {
            case "guid":
                guard UUID(uuidString: body) != nil else { return nil }
                return .guid(body.lowercased())
            case "datetime":
                guard var instant = ODataInstant(iso8601: body) else { return nil }
                instant.offsetMinutes = nil
                return .dateTime(instant)
            case "datetimeoffset":
                return ODataInstant(iso8601: body).map(ODataValue.dateTimeOffset)
            case "time", "duration":
                return ODataDuration(parsing: body).map(ODataValue.time)
            case "x", "binary":
                return hexData(body).map(ODataValue.binary)
            default:
                return nil
            }
        }
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        case "NaNd", "NaNf", "NaN": return .double(.nan)
        case "INFd", "INFf", "INF": return .double(.infinity)
        case "-INFd", "-INFf", "-INF": return .double(-.infinity)
        default: break
        }
        if let bare = parseBareVersion4(text) { return bare }
        let last = text.last!
        switch last {
        case "L", "l":
            return Int64(text.dropLast()).map(ODataValue.int)
        case "M", "m":
            return DecimalText.canonical(text.dropLast()).map(ODataValue.decimal)
        case "d", "D", "f", "F":
            guard isNumeric(text.dropLast()), let number = Double(text.dropLast()) else { return nil }
            return .double(number)
        default:
            if let integer = Int64(text) { return .int(integer) }
            guard isNumeric(text), let number = Double(text) else { return nil }
            return .double(number)
        }
    }

    /// v4's unquoted guids, dates and date-times (`0c4b…9e11`, `2025-08-30`, `2025-08-30T10:00:00Z`), which no
    /// v2 literal looks like; nil for anything else.
    static func parseBareVersion4(_ text: Substring) -> ODataValue? {
        let utf8 = text.utf8
        if utf8.count == 36, UUID(uuidString: String(text)) != nil { return .guid(text.lowercased()) }
        guard utf8.count >= 10, utf8.dropFirst(4).first == UInt8(ascii: "-"),
            utf8.dropFirst(7).first == UInt8(ascii: "-"), var instant = ODataInstant(iso8601: text)
        else { return nil }
        if utf8.count == 10 {
            instant.offsetMinutes = nil
            return .dateTime(instant)
        }
        return .dateTimeOffset(instant)
    }

    /// The body of a single-quoted literal with `''` undoubled; nil unless properly quoted.
    static func unquote(_ text: Substring) -> String? {
        let scalars = text.unicodeScalars
        guard scalars.count >= 2, scalars.first == "'", scalars.last == "'" else { return nil }
        var result = String.UnicodeScalarView()
        var index = scalars.index(after: scalars.startIndex)
        let end = scalars.index(before: scalars.endIndex)
        while index < end {
            let scalar = scalars[index]
            if scalar == "'" {
                let next = scalars.index(after: index)
                guard next < end, scalars[next] == "'" else { return nil }
                result.append("'")
                index = scalars.index(after: next)
            } else {
                result.append(scalar)
                index = scalars.index(after: index)
            }
        }
        return String(result)
    }

    static func isNumeric(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }
    }

    static func hexData(_ text: String) -> Data? {
        let bytes = Array(text.utf8)
        guard bytes.count % 2 == 0 else { return nil }
        var data = Data(capacity: bytes.count / 2)
        var index = 0
        while index < bytes.count {
            guard let high = hexDigit(bytes[index]), let low = hexDigit(bytes[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func pad2hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
