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

extension ListKey {
    /// Whether `text` (a list's key, or its URL with `set` its set's address) names one of `set`'s own lists: `Set`,
    /// `Set?…`, or one narrowed to a derived type, `Set/NS.Type` and `Set/NS.Type?…` (issue 37); not `Set/$count`, a
    /// relation, or a key written as a segment.
    public static func namesOwnList(_ text: String, of set: String) -> Bool {
        guard text.hasPrefix(set) else { return false }
        let rest = text.dropFirst(set.count)
        guard let first = rest.first else { return true }
        if first == "?" { return true }
        guard first == "/" else { return false }
        let segment = rest.dropFirst().prefix { $0 != "?" }
        return segment.contains(".") && !segment.contains("/") && !segment.contains("(") && segment.first != "$"
    }
}
