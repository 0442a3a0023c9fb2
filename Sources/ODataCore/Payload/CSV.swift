import Foundation

/// RFC 4180 text: what `cardealer export` and `:export` write.
public enum CSV {
    /// A field, quoted when it holds a comma, a quote, CR or LF (quotes doubled).
    public static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else {
            return text
        }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A record: the fields joined by commas, ended by CRLF.
    public static func record(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }

    /// A value as CSV text: a string as it is, null as nothing, anything else in its JSON form, unquoted.
    public static func text(_ value: ODataValue?) -> String {
        guard let value else { return "" }
        switch value {
        case .null: return ""
        case .string(let text), .guid(let text): return text
        case .dateTime(let instant): return instant.iso8601(withOffset: false)
        case .dateTimeOffset(let instant): return instant.iso8601(withOffset: true)
        case .time(let duration): return duration.iso8601
        case .binary(let data): return data.base64EncodedString()
        default: return PlainJSON.value(value)
        }
    }
}
