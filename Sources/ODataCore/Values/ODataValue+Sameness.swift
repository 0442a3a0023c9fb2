import Foundation

extension ODataValue {
    /// Whether `other` is the same value however it was written: decimals by their digits (`1.50` is `1.5`),
    /// numbers across the kinds a service may answer with (`5` for a typed `5.0`), instants by the moment they name
    /// (whatever offset they carry), guids whatever their case; everything else as it is.
    public func isSameValue(as other: ODataValue) -> Bool {
        switch (self, other) {
        case (.dateTime(let a), .dateTime(let b)), (.dateTimeOffset(let a), .dateTimeOffset(let b)),
            (.dateTime(let a), .dateTimeOffset(let b)), (.dateTimeOffset(let a), .dateTime(let b)):
            return a.millisecondsSince1970 == b.millisecondsSince1970
        case (.guid(let a), .guid(let b)):
            return a.lowercased() == b.lowercased()
        case (.complex(let a), .complex(let b)):
            return a.count == b.count
                && zip(a, b).allSatisfy { $0.name == $1.name && $0.value.isSameValue(as: $1.value) }
        default:
            if let a = numericValue, let b = other.numericValue { return a == b }
            return self == other
        }
    }

    /// A number's value, exact for integers and decimals.
    var numericValue: Decimal? {
        switch self {
        case .int(let value): Decimal(value)
        case .decimal(let text): Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        case .double(let value) where value.isFinite: Decimal(value)
        default: nil
        }
    }
}
