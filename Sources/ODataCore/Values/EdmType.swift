/// The primitive types of the Entity Data Model (CSDL v1–v2, and v4's `Date`, `TimeOfDay` and `Duration`).
///
/// v4's three new types reuse the values v2 already has: a `Date` is a ``ODataValue/dateTime(_:)`` at midnight
/// UTC, a `TimeOfDay` and a `Duration` are ``ODataValue/time(_:)``; the declared type says how to write them.
public enum EdmPrimitiveType: String, Sendable, Hashable, CaseIterable {
    case binary = "Edm.Binary"
    case boolean = "Edm.Boolean"
    case byte = "Edm.Byte"
    case dateTime = "Edm.DateTime"
    case dateTimeOffset = "Edm.DateTimeOffset"
    case decimal = "Edm.Decimal"
    case double = "Edm.Double"
    case single = "Edm.Single"
    case guid = "Edm.Guid"
    case int16 = "Edm.Int16"
    case int32 = "Edm.Int32"
    case int64 = "Edm.Int64"
    case sByte = "Edm.SByte"
    case string = "Edm.String"
    case time = "Edm.Time"
    case stream = "Edm.Stream"
    /// v4: a calendar date, `2025-08-30`.
    case date = "Edm.Date"
    /// v4: a clock time, `13:20:00`.
    case timeOfDay = "Edm.TimeOfDay"
    /// v4: a length of time, `P1DT2H`.
    case duration = "Edm.Duration"

    /// Whether values of this type are whole numbers held in an `Int64`.
    public var isInteger: Bool {
        switch self {
        case .byte, .sByte, .int16, .int32, .int64: true
        default: false
        }
    }
}

/// The declared type of a property: a primitive, a complex type, or a collection of either.
public indirect enum EdmTypeReference: Sendable, Hashable, CustomStringConvertible {
    case primitive(EdmPrimitiveType)
    /// A complex or entity type, by qualified name (aliases already resolved).
    case named(String)
    case collection(EdmTypeReference)
    /// A type this client does not know (kept so the name can be shown).
    case unknown(String)

    /// Parses a `Type="…"` attribute value such as `Edm.Int32` or `Collection(NS.Address)`.
    public init(parsing text: String) {
        if text.hasPrefix("Collection("), text.hasSuffix(")") {
            self = .collection(EdmTypeReference(parsing: String(text.dropFirst(11).dropLast())))
        } else if let primitive = EdmPrimitiveType(rawValue: text) {
            self = .primitive(primitive)
        } else if text.hasPrefix("Edm.") {
            self = .unknown(text)
        } else {
            self = .named(text)
        }
    }

    public var description: String {
        switch self {
        case .primitive(let type): type.rawValue
        case .named(let name), .unknown(let name): name
        case .collection(let element): "Collection(\(element))"
        }
    }

    /// The primitive type, when this is one.
    public var primitive: EdmPrimitiveType? {
        if case .primitive(let type) = self { return type }
        return nil
    }
}
