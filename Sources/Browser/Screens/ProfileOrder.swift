import EntityCache
import Foundation
import ODataCore

/// A profile's `orderBy` (`["serviceDate desc", "maintenanceID"]`) applied to rows the cache
/// holds in another order: a drilled list comes in the order of its links, not the server's
/// `$orderby`.
struct ProfileOrder {
    struct Item: Hashable {
        var property: String
        var descending: Bool
    }

    var items: [Item]

    /// Reads `name [asc|desc]` items; unknown words leave an item ascending.
    init(_ orderBy: [String]) {
        items = orderBy.compactMap { text in
            let words = text.split(separator: " ")
            guard let name = words.first else { return nil }
            return Item(property: String(name), descending: words.count > 1 && words[1].lowercased() == "desc")
        }
    }

    /// `rows` sorted by the items, ties (and rows not cached yet) keeping their link order.
    func sorted(_ rows: [ListRow]) -> [ListRow] {
        guard !items.isEmpty else { return rows }
        return rows.enumerated().sorted { left, right in
            for item in items {
                let a = left.element.shown?[item.property] ?? .null
                let b = right.element.shown?[item.property] ?? .null
                if let order = Self.compare(a, b), order != .orderedSame {
                    return (order == .orderedAscending) != item.descending
                }
            }
            return left.offset < right.offset
        }.enumerated().map { position, pair in
            var row = pair.element
            row.position = position
            return row
        }
    }

    /// How two values of one property order, nulls first as OData's `$orderby` does; nil when
    /// they cannot be compared (different kinds).
    static func compare(_ a: ODataValue, _ b: ODataValue) -> ComparisonResult? {
        switch (a, b) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.bool(let x), .bool(let y)): return order(x ? 1 : 0, y ? 1 : 0)
        case (.int(let x), .int(let y)): return order(x, y)
        case (.double(let x), .double(let y)): return order(x, y)
        case (.decimal(let x), .decimal(let y)): return order(Double(x) ?? 0, Double(y) ?? 0)
        case (.string(let x), .string(let y)), (.guid(let x), .guid(let y)): return order(x, y)
        case (.dateTime(let x), .dateTime(let y)), (.dateTimeOffset(let x), .dateTimeOffset(let y)): return order(x, y)
        case (.time(let x), .time(let y)): return order(x, y)
        default: return nil
        }
    }

    static func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
        x < y ? .orderedAscending : x == y ? .orderedSame : .orderedDescending
    }
}
