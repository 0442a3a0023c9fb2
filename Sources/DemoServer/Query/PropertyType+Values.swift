import GRDB
import ODataCore

extension PropertyType {
    /// The OData value of a stored column value.
    func odataValue(_ stored: DatabaseValue) -> ODataValue {
        switch stored.storage {
        case .null: return .null
        case .int64(let number):
            switch self {
            case .int32, .string: return .int(number)
            case .dateTime: return .dateTime(ODataInstant(millisecondsSince1970: number))
            case .decimalCents: return .decimal(Self.decimalText(cents: number))
            }
        case .string(let text): return .string(text)
        case .double(let number): return .double(number)
        case .blob(let data): return .binary(data)
        }
    }

    /// The stored form of a literal (a skip-token value), or nil when it does not fit this type.
    func storedValue(_ value: ODataValue) -> DatabaseValue? {
        switch (self, value) {
        case (.int32, .int(let number)): return number.databaseValue
        case (.string, .string(let text)): return text.databaseValue
        case (.dateTime, .dateTime(let instant)), (.dateTime, .dateTimeOffset(let instant)):
            return instant.millisecondsSince1970.databaseValue
        case (.decimalCents, .int(let number)): return (number * 100).databaseValue
        case (.decimalCents, .decimal(let text)):
            guard let number = Double(text) else { return nil }
            return Int64((number * 100).rounded()).databaseValue
        default: return nil
        }
    }

    /// `12345` cents → `"123.45"`; always two decimals, as `Scale="2"` says.
    static func decimalText(cents: Int64) -> String {
        let sign = cents < 0 ? "-" : ""
        let magnitude = cents.magnitude
        let fraction = magnitude % 100
        return sign + String(magnitude / 100) + "." + (fraction < 10 ? "0" : "") + String(fraction)
    }
}
