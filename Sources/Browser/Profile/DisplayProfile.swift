import Foundation
import ODataCore

/// How a service's entity sets are shown: titles, row labels, columns, and drill-downs.
///
/// A profile is optional. Without one, ``DisplayProfile/defaults(for:)`` derives a
/// usable presentation from `$metadata` alone: a root list of entity sets, row
/// labels chosen from the properties (``defaultLabel(properties:keys:)``), and drill-downs
/// along every navigation.
/// The CarDealer profile ships in `Sources/Browser/Profile/cardealer.profile.json`.
public struct DisplayProfile: Sendable, Decodable {
    /// The entity set the browser opens on; nil opens the list of all entity sets.
    public var root: String?
    public var sets: [String: SetProfile]

    /// How one entity set is shown.
    public struct SetProfile: Sendable, Decodable {
        /// Screen title for a list of these entities ("People").
        public var title: String?
        /// Row label template, e.g. `{lastName}, {firstName}`; also used in breadcrumbs.
        public var row: String?
        /// `$orderby` items, e.g. `["serviceDate desc", "maintenanceID"]`.
        public var orderBy: [String]?
        /// Properties the `/` filter searches.
        public var search: [String]?
        public var columns: [Column]?
        /// What Enter on a row opens.
        public var drill: Drill?
        /// The charts `c` offers on a list of these entities, the first opened first; Tab cycles.
        public var charts: [Chart]? = nil
    }

    /// A chart of a list: a number (`y`) over a date (`x`); `cumulative` adds the running total as a line (on a
    /// scale of its own) over bars of each value.
    public struct Chart: Sendable, Decodable {
        public var y: String
        public var x: String
        public var cumulative: Bool?
    }

    /// One column of a list screen.
    public struct Column: Sendable, Decodable, Equatable {
        public var title: String
        /// Template, e.g. `{manufactureDate:year}`.
        public var value: String
        /// Cells; 0 takes the remaining width.
        public var width: Int?
        /// `left` (default) or `right`.
        public var align: String?
        /// How good or bad the value is (`UI.Criticality`, issue 33): drawn in the theme's colour for the level,
        /// with a mark beside it when `marksCriticality` (so that it reads in monochrome too). From the service's
        /// annotations, not from a profile file.
        public var criticality: Criticality? = nil
        public var marksCriticality = true

        enum CodingKeys: String, CodingKey {
            case title, value, width, align
        }
    }

    /// A drill-down: a navigation path whose intermediate entities are link entities
    /// the user never sees (`["PersonCar", "Car"]`: a person's cars, through PersonCar).
    public struct Drill: Sendable, Decodable {
        public var path: [String]
        public var title: String?
    }

    public init(root: String?, sets: [String: SetProfile]) {
        self.root = root
        self.sets = sets
    }

    /// Every drill-down path the profile names, for the fetcher's hops (`Sync.PrefetchHints(drillPaths:)`).
    public var drillPaths: [[String]] {
        sets.keys.sorted().compactMap { sets[$0]?.drill?.path }
    }

    /// Per set with columns, the properties its lists show: the row label, the columns, the order, the search
    /// and the charts (`Sync.PrefetchHints.shown`; a prefetch of that set asks for these only). Sets without
    /// columns show every property, so they are not named.
    public var shownFields: [String: [String]] {
        var result: [String: [String]] = [:]
        for (name, set) in sets {
            guard let columns = set.columns else { continue }
            var fields: [String] = []
            func add(_ names: [String]) {
                for name in names where !fields.contains(name) { fields.append(name) }
            }
            add(set.row.map(ValueFormatter.fields(of:)) ?? [])
            for column in columns { add(ValueFormatter.fields(of: column.value)) }
            add((set.orderBy ?? []).compactMap { $0.split(separator: " ").first.map(String.init) })
            add(set.search ?? [])
            for chart in set.charts ?? [] { add([chart.x, chart.y]) }
            result[name] = fields
        }
        return result
    }

    /// Per set, the properties of its row label (`Sync.PrefetchHints.labels`).
    public var labelFields: [String: [String]] {
        sets.compactMapValues { $0.row.map(ValueFormatter.fields(of:)) }
    }

    /// Reads a profile from JSON.
    public static func load(from data: Data) throws -> DisplayProfile {
        try JSONDecoder().decode(DisplayProfile.self, from: data)
    }

    /// The profile of `set`; a contained set's (`Person(1)/Trips`) is the one of all such sets (`Person/Trips`).
    public func set(named set: String) -> SetProfile? {
        sets[set] ?? sets[Containment.template(of: set)]
    }

    /// A profile derived from `$metadata` alone.
    public static func defaults(for model: ServiceModel) -> DisplayProfile {
        var sets: [String: SetProfile] = [:]
        for set in model.entitySets + model.containedEntitySets {
            guard let type = model.entityTypes[set.entityType] else { continue }
            let properties = model.properties(of: type)
            let keys = model.keyProperties(of: type)
            let label: (row: String, search: [String]) =
                type.titleProperties.isEmpty
                ? defaultLabel(properties: properties, keys: keys)
                : (type.titleProperties.map { "{\($0)}" }.joined(separator: " · "), type.titleProperties)
            // The service's name for a list of them (`UI.HeaderInfo`'s `TypeNamePlural`), else the set's.
            let plural = type.ui.typeNamePlural.map { String($0.prefix(60)) }
            // The order `UI.PresentationVariant` gives a list of them (properties it has, at most 8).
            let names = Set(properties.map(\.name))
            let order = type.ui.sortOrder?.filter { names.contains($0.property) }.prefix(8)
                .map { $0.property + ($0.descending ? " desc" : "") }
            sets[set.name] = SetProfile(
                title: plural.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
                    ?? set.containment?.navigation ?? set.name, row: label.row,
                orderBy: order.flatMap { $0.isEmpty ? nil : $0 }, search: label.search, columns: nil, drill: nil
            )
        }
        return DisplayProfile(root: nil, sets: sets)
    }

    /// This profile with what it leaves unsaid filled in from `$metadata` and the service's annotations: sets it
    /// does not mention, and, of those it does, a title, an order or a row label it does not give (a profile overrides the
    /// service where it speaks, and only there).
    public func completed(for model: ServiceModel) -> DisplayProfile {
        var result = self
        for (name, set) in Self.defaults(for: model).sets {
            guard var mine = result.sets[name] else {
                result.sets[name] = set
                continue
            }
            mine.title = mine.title ?? set.title
            mine.orderBy = mine.orderBy ?? set.orderBy
            if mine.row == nil {
                mine.row = set.row
                mine.search = mine.search ?? set.search
            }
            result.sets[name] = mine
        }
        if let root, model.entitySet(named: root) == nil { result.root = nil }
        return result
    }
}
