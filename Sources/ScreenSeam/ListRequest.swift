import ODataCore

/// A list a screen shows: a collection path and the options that decide its content.
///
/// Its ``key`` is the list's identity in the cache: the canonical path plus
/// `$filter`/`$orderby` only (seed 004's non-fielded endpoint), so `$top`,
/// `$skip`, `$skiptoken`, `$select` and `$expand` all land in the same stored list.
public struct ListRequest: Sendable, Hashable {
    public var path: ResourcePath
    public var options: QueryOptions

    public init(path: ResourcePath, options: QueryOptions = QueryOptions()) {
        self.path = path
        self.options = options
    }

    /// An entity set, optionally filtered and ordered.
    public init(entitySet: String, filter: String? = nil, orderBy: [QueryOptions.OrderItem] = []) {
        self.init(path: ResourcePath(entitySet: entitySet), options: QueryOptions(filter: filter, orderBy: orderBy))
    }

    public var key: ListKey { ListKey(path: path, options: options) }
}
