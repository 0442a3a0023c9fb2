/// Which OData protocol a service speaks, as its `$metadata` says: EDMX 1.0 (OData v1–v2, verbose JSON in `"d"`)
/// or EDMX 4.x (OData v4, `value` and `@odata.*` annotations). Everything that differs on the wire between the two
/// (headers, literals, query options, payload shapes, write verbs) asks this, never the server's name.
public enum ODataDialect: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case v2
    case v4

    public var description: String { self == .v4 ? "OData v4" : "OData v2" }
}

extension ServiceModel {
    /// The dialect the service speaks: v4 when its `$metadata` is EDMX 4.x, else v2.
    public var dialect: ODataDialect { isVersion4 ? .v4 : .v2 }
}
