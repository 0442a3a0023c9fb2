import Foundation

/// The body of a write, in OData's JSON request format: one plain object of properties.
///
/// Each value is written as the property's Edm type wants it on the wire (what ``PayloadDecoder`` reads
/// back). v2: `Edm.Int64` and `Edm.Decimal` as strings (no precision lost in a JavaScript client), `Edm.DateTime`
/// as `/Date(ms)/`, `Edm.DateTimeOffset` as `/Date(ms+hhmm)/`, `Edm.Time` as `PT…`, `Edm.Binary` as base64.
/// v4: numbers as JSON numbers, `Edm.Date` as `2025-08-30`, `Edm.DateTimeOffset` as ISO 8601, `Edm.TimeOfDay` as
/// `13:20:00`, `Edm.Duration` as `P…`, `Edm.Binary` as base64url, collections as bare arrays.
/// Strings are escaped so that any text — controls, quotes, lone surrogates replaced — is valid JSON.
public enum RequestBodyEncoder {
    /// `{"name":value,…}` for `properties` in order; `types` gives each property's Edm type (from `$metadata`).
    /// `bindings` link the entity to existing ones through its navigation properties, as v2 writes it:
    /// `"Car":{"__metadata":{"uri":"…/Car(7)"}}`; v4 as `"Car@odata.bind":"…/Car(7)"`.
    public static func object(
        _ properties: [ODataProperty], types: [String: EdmPrimitiveType] = [:],
        bindings: [(navigation: String, uri: String)] = [], dialect: ODataDialect = .v2
    ) -> [UInt8] {
        var out = "{"
        for (index, property) in properties.enumerated() {
            if index > 0 { out += "," }
            out += string(property.name) + ":" + value(property.value, as: types[property.name], dialect: dialect)
        }
        for (index, binding) in bindings.enumerated() {
            if index > 0 || !properties.isEmpty { out += "," }
            if dialect == .v4 {
                out += string(binding.navigation + "@odata.bind") + ":" + string(binding.uri)
            } else {
                out += string(binding.navigation) + ":{\"__metadata\":{\"uri\":" + string(binding.uri) + "}}"
            }
        }
        out += "}"
        return Array(out.utf8)
    }

    /// One value as JSON text.
    public static func value(
        _ value: ODataValue, as type: EdmPrimitiveType? = nil, dialect: ODataDialect = .v2
    ) -> String {
        if dialect == .v4 { return version4Value(value, as: type) }
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return type == .int64 ? "\"\(number)\"" : String(number)
        case .decimal(let text): return "\"" + text + "\""
        case .double(let number):
            guard number.isFinite else { return "\"" + (number.isNaN ? "NaN" : number > 0 ? "INF" : "-INF") + "\"" }
            return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .string(let text): return string(text)
        case .guid(let text): return string(text)
        case .dateTime(let instant): return "\"\\/Date(\(instant.millisecondsSince1970))\\/\""
        case .dateTimeOffset(let instant):
            let minutes = instant.offsetMinutes ?? 0
            let sign = minutes < 0 ? "-" : "+"
            let offset = String(format: "%04d", abs(minutes))
            return "\"\\/Date(\(instant.millisecondsSince1970)\(sign)\(offset))\\/\""
        case .time(let duration): return string(duration.iso8601)
        case .binary(let data): return string(data.base64EncodedString())
        case .complex(let members):
            return String(decoding: object(members), as: UTF8.self)
        case .collection(let elements):
            return "{\"results\":[" + elements.map { self.value($0) }.joined(separator: ",") + "]}"
        }
    }

    static func version4Value(_ value: ODataValue, as type: EdmPrimitiveType?) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .decimal(let text): return text
        case .double(let number):
            guard number.isFinite else { return "\"" + (number.isNaN ? "NaN" : number > 0 ? "INF" : "-INF") + "\"" }
            return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .string(let text): return string(text)
        case .guid(let text): return string(text)
        case .dateTime, .dateTimeOffset, .time:
            // The same spelling as the URL literal, quoted; a Duration's literal is `duration'P…'`, its JSON `P…`.
            let literal = ODataLiteral.format(value, as: type, dialect: .v4) ?? ""
            if literal.hasPrefix("duration'"), case .time(let duration) = value { return string(duration.iso8601) }
            return string(literal)
        case .binary(let data):
            return string(
                data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
                    of: "/", with: "_"))
        case .complex(let members):
            return String(decoding: object(members, dialect: .v4), as: UTF8.self)
        case .collection(let elements):
            return "[" + elements.map { version4Value($0, as: nil) }.joined(separator: ",") + "]"
        }
    }

    /// A JSON string literal: quotes, backslashes and every control character escaped (``JSONEscaping``).
    public static func string(_ text: String) -> String { JSONEscaping.string(text) }
}
