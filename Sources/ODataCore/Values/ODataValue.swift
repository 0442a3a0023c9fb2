import Foundation

/// One property value as a payload of either dialect carries it, typed as precisely as known.
///
/// Integers and decimals are lossless: `Edm.Int64` fits `Int64` whatever the
/// server sent (string or number), and `Edm.Decimal` keeps its digits as text.
public enum ODataValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// `Edm.Byte`, `SByte`, `Int16`, `Int32` or `Int64`.
    case int(Int64)
    /// `Edm.Decimal` as canonical decimal text (no exponent, no trailing zeros after the point).
    case decimal(String)
    /// `Edm.Double` or `Edm.Single`.
    case double(Double)
    case string(String)
    /// `Edm.Guid`, lower-cased.
    case guid(String)
    /// `Edm.DateTime`: an instant with no offset (read as UTC).
    case dateTime(ODataInstant)
    /// `Edm.DateTimeOffset`: an instant with the offset it was written in.
    case dateTimeOffset(ODataInstant)
    /// `Edm.Time`: a duration (time of day).
    case time(ODataDuration)
    case binary(Data)
    /// A complex-type value: its members in order.
    case complex([ODataProperty])
    /// A collection property (bag) value.
    case collection([ODataValue])

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// A named value: one property of an entity or a complex value.
public struct ODataProperty: Sendable, Hashable {
    public var name: String
    public var value: ODataValue

    public init(name: String, value: ODataValue) {
        self.name = name
        self.value = value
    }
}

/// An instant on the wire as `/Date(ms±hhmm)/` or ISO-8601.
public struct ODataInstant: Sendable, Hashable, Comparable {
    /// Milliseconds since 1970-01-01T00:00:00Z (negative before).
    public var millisecondsSince1970: Int64
    /// The offset from UTC in minutes it was written with, if any.
    public var offsetMinutes: Int?

    public init(millisecondsSince1970: Int64, offsetMinutes: Int? = nil) {
        self.millisecondsSince1970 = millisecondsSince1970
        self.offsetMinutes = offsetMinutes
    }

    /// The instant as a Foundation date.
    public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }

    public static func < (lhs: ODataInstant, rhs: ODataInstant) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }
}

/// A duration as `Edm.Time` carries it (`PT02H39M44S` or `02:39:44`).
public struct ODataDuration: Sendable, Hashable, Comparable {
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    public static func < (lhs: ODataDuration, rhs: ODataDuration) -> Bool {
        lhs.milliseconds < rhs.milliseconds
    }
}
