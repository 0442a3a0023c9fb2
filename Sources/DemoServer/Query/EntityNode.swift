import GRDB

/// One entity read from the database, with the navigations that were expanded for it.
struct EntityNode: Sendable {
    /// The entity set's name.
    var set: String
    /// Column values in ``ServiceSchema/columns(of:)`` order.
    var values: [DatabaseValue]
    /// Expanded navigations by name.
    var expanded: [String: Expansion] = [:]

    /// The key value (the first column).
    var key: Int64 { Int64.fromDatabaseValue(values[0]) ?? 0 }
}

/// The content of an expanded navigation.
indirect enum Expansion: Sendable {
    case one(EntityNode?)
    case many([EntityNode])
}

/// What a request resolved to, ready to be written.
enum QueryResult: Sendable {
    case entity(EntityNode)
    case collection([EntityNode], count: Int?, next: NextPage?)
    case count(Int)
    /// A single property of an entity; `raw` for `/$value`.
    case property(name: String, type: PropertyType, value: DatabaseValue, raw: Bool)
}

/// Where the next page of a collection starts.
struct NextPage: Sendable {
    /// The `$skiptoken` value (unencoded).
    var skipToken: String
    /// What is left of `$top`, if one was given.
    var remainingTop: Int?
}
