import Foundation

/// Entities as plain JSON objects, each Edm value in its JSON form as OData v4 writes it (ISO 8601 dates,
/// numbers as numbers, decimals and 64-bit integers exactly): what a person copies or a script reads, not a
/// request body (that is ``RequestBodyEncoder``, in the service's dialect).
public enum PlainJSON {
    /// `{"name": value, …}` in the properties' order.
    public static func object(_ properties: [ODataProperty]) -> String {
        "{" + properties.map { RequestBodyEncoder.string($0.name) + ":" + value($0.value) }.joined(separator: ",") + "}"
    }

    /// One value.
    public static func value(_ value: ODataValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .decimal(let text): return text
        case .double(let number):
            guard number.isFinite else {
                return RequestBodyEncoder.string(number.isNaN ? "NaN" : number > 0 ? "INF" : "-INF")
            }
            return String(number)
        case .string(let text), .guid(let text): return RequestBodyEncoder.string(text)
        case .dateTime(let instant): return RequestBodyEncoder.string(instant.iso8601(withOffset: false))
        case .dateTimeOffset(let instant): return RequestBodyEncoder.string(instant.iso8601(withOffset: true))
        case .time(let duration): return RequestBodyEncoder.string(duration.iso8601)
        case .binary(let data): return RequestBodyEncoder.string(data.base64EncodedString())
        case .complex(let members): return object(members)
        case .collection(let elements): return "[" + elements.map { self.value($0) }.joined(separator: ",") + "]"
        }
    }
}
