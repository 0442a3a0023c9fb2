import Foundation

/// A `$filter` as a value: what a screen asks of a list, written out by each dialect here and nowhere else, and
/// evaluated on rows already cached the way the service would answer it.
///
/// Comparisons name a property (a path with `/` through complex members and to-one navigations) and a typed value;
/// `contains` is a case-insensitive substring (v2 `substringof`, v4 `contains`, both over `tolower`).
public indirect enum QueryFilter: Sendable, Hashable {
    case compare(String, Comparison, ODataValue, type: EdmPrimitiveType? = nil)
    case contains(String, String)
    /// A property of an enum type equal (or not) to a member: `color eq NS.Color'Red'` (issue 37).
    case member(String, Comparison, String, enumType: String)
    /// All of them (`and`); none is true.
    case all([QueryFilter])
    /// Any of them (`or`); none is false.
    case any([QueryFilter])

    /// OData's comparison operators.
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        case eq, ne, gt, ge, lt, le

        /// How people type it: `=`, `!=`, `>`, `>=`, `<`, `<=`.
        public var symbol: String {
            switch self {
            case .eq: "="
            case .ne: "!="
            case .gt: ">"
            case .ge: ">="
            case .lt: "<"
            case .le: "<="
            }
        }
    }

    /// The properties it names, in order, once each.
    public var properties: [String] {
        var seen: [String] = []
        func walk(_ expression: QueryFilter) {
            switch expression {
            case .compare(let property, _, _, _), .contains(let property, _), .member(let property, _, _, _):
                if !seen.contains(property) { seen.append(property) }
            case .all(let parts), .any(let parts):
                parts.forEach(walk)
            }
        }
        walk(self)
        return seen
    }

    /// The `$filter` text (unencoded) in `dialect`; nil for a comparison with a value that has no literal
    /// (a complex or collection value).
    public func text(dialect: ODataDialect) -> String? {
        switch self {
        case .compare(let property, let comparison, let value, let type):
            guard let literal = ODataLiteral.format(value, as: type, dialect: dialect) else { return nil }
            return "\(property) \(comparison.rawValue) \(literal)"
        case .member(let property, let comparison, let member, let enumType):
            return "\(property) \(comparison.rawValue) \(enumType)\(ODataLiteral.quote(member))"
        case .contains(let property, let text):
            let literal = ODataLiteral.quote(text.lowercased())
            return dialect == .v4
                ? "contains(tolower(\(property)), \(literal))" : "substringof(\(literal), tolower(\(property)))"
        case .all(let parts), .any(let parts):
            guard !parts.isEmpty else { return self == .all([]) ? "true" : "false" }
            var texts: [String] = []
            for part in parts {
                guard let text = part.text(dialect: dialect) else { return nil }
                texts.append(parts.count > 1 && part.isJunction ? "(\(text))" : text)
            }
            return texts.joined(separator: { if case .all = self { " and " } else { " or " } }())
        }
    }

    private var isJunction: Bool {
        switch self {
        case .all, .any: true
        default: false
        }
    }

    /// Whether an entity whose values `value(property)` gives matches, as the service would answer: a comparison
    /// with a missing or incomparable value is false (as with OData's `null`), except `ne`.
    public func matches(_ value: (String) -> ODataValue?) -> Bool {
        switch self {
        case .compare(let property, let comparison, let wanted, _):
            let have = value(property) ?? .null
            guard let order = ODataValue.order(have, wanted) else { return comparison == .ne }
            if (have == .null) != (wanted == .null) { return comparison == .ne }
            switch comparison {
            case .eq: return order == .orderedSame
            case .ne: return order != .orderedSame
            case .gt: return order == .orderedDescending
            case .ge: return order != .orderedAscending
            case .lt: return order == .orderedAscending
            case .le: return order != .orderedDescending
            }
        case .member(let property, let comparison, let member, _):
            // (members as the service sends them: names, flags joined by commas)
            let have: Set<Substring> = {
                guard case .string(let text)? = value(property) else { return [] }
                return Set(text.split(separator: ",").map { Substring($0.trimmingCharacters(in: .whitespaces)) })
            }()
            let wanted = Set(member.split(separator: ","))
            switch comparison {
            case .eq: return !have.isEmpty && have == wanted
            case .ne: return have != wanted
            default: return false
            }
        case .contains(let property, let text):
            guard case .string(let have)? = value(property) else { return false }
            return text.isEmpty || have.lowercased().contains(text.lowercased())
        case .all(let parts):
            return parts.allSatisfy { $0.matches(value) }
        case .any(let parts):
            return parts.contains { $0.matches(value) }
        }
    }

    /// `existing` (a list's own `$filter`, as its request holds it) and `self`, both to hold.
    public func and(_ existing: String?, dialect: ODataDialect) -> String? {
        guard let mine = text(dialect: dialect) else { return existing }
        guard let existing, !existing.isEmpty else { return mine }
        return "(\(existing)) and (\(mine))"
    }
}

extension ODataValue {
    /// How two values of one property order, nulls first as `$orderby` has them; numbers of any kind against each
    /// other; nil when they cannot be compared (different kinds).
    public static func order(_ a: ODataValue, _ b: ODataValue) -> ComparisonResult? {
        func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
            x < y ? .orderedAscending : x == y ? .orderedSame : .orderedDescending
        }
        switch (a, b) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.bool(let x), .bool(let y)): return order(x ? 1 : 0, y ? 1 : 0)
        case (.int(let x), .int(let y)): return order(x, y)
        case (.string(let x), .string(let y)), (.guid(let x), .guid(let y)): return order(x, y)
        case (.dateTime(let x), .dateTime(let y)), (.dateTimeOffset(let x), .dateTimeOffset(let y)),
            (.dateTime(let x), .dateTimeOffset(let y)), (.dateTimeOffset(let x), .dateTime(let y)):
            // The same instant written with another offset is the same instant.
            return order(x.millisecondsSince1970, y.millisecondsSince1970)
        case (.time(let x), .time(let y)): return order(x, y)
        default:
            guard let x = a.number, let y = b.number else { return nil }
            return order(x, y)
        }
    }

    /// A number of any kind as a `Double` (decimals by their text); nil for anything else.
    var number: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        case .decimal(let text): Double(text)
        default: nil
        }
    }
}
