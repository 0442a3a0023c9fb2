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

    /// How two values of one property order (``ODataValue/order(_:_:)``).
    static func compare(_ a: ODataValue, _ b: ODataValue) -> ComparisonResult? { ODataValue.order(a, b) }
}
