/// The identity of a stored list: `Person`, `Person?$filter=age gt 30&$orderby=lastName`.
public struct ListKey: Sendable, Hashable, CustomStringConvertible {
    public let canonical: String

    public init(path: ResourcePath, options: QueryOptions) {
        let identity = options.listIdentity
        canonical = path.canonical + (identity.isEmpty ? "" : "?" + identity)
    }

    /// A key from its canonical text (as stored).
    public init(canonical: String) {
        self.canonical = canonical
    }

    public var description: String { canonical }
}
