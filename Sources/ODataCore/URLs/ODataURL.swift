/// Builds request URLs from a service root, a resource path and query options.
public struct ODataURLBuilder: Sendable {
    /// The service root, normalised to end with `/` (a root without it may redirect).
    public let serviceRoot: String
    /// Key property types per entity set, so literals get their suffixes (`10248L`).
    public let keyTypes: @Sendable (String) -> [String: EdmPrimitiveType]
    /// How literals and query options are spelled.
    public let dialect: ODataDialect
    /// v4: whether expansions nest (`A($expand=B)`); false for a service that refuses options inside `$expand`,
    /// which then gets the first level only.
    public let nestsExpand: Bool
    /// Whether a single key is its own segment (`Staff/3`), as a service that declares `KeyAsSegmentSupported`
    /// addresses its entities.
    public let keyAsSegment: Bool
    /// The path as it is sent: with the type casts a navigation of a derived type needs (see
    /// ``ServiceModel/castingDerivedNavigations(_:)``).
    let addressed: @Sendable (ResourcePath) -> ResourcePath
    /// The `$expand` paths under a path as they are sent: with the type casts a navigation of a derived type needs
    /// (see ``ServiceModel/castingDerivedExpansions(_:fromSet:)``).
    let expanded: @Sendable (ResourcePath, [String]) -> [String]

    public init(
        serviceRoot: String, dialect: ODataDialect = .v2, nestsExpand: Bool = true, keyAsSegment: Bool = false,
        keyTypes: @escaping @Sendable (String) -> [String: EdmPrimitiveType] = { _ in [:] },
        addressed: @escaping @Sendable (ResourcePath) -> ResourcePath = { $0 },
        expanded: @escaping @Sendable (ResourcePath, [String]) -> [String] = { $1 }
    ) {
        self.addressed = addressed
        self.expanded = expanded
        self.serviceRoot = serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/"
        self.dialect = dialect
        self.nestsExpand = nestsExpand
        self.keyAsSegment = keyAsSegment
        self.keyTypes = keyTypes
    }

    /// A builder whose key literals are typed by a service model, in the model's dialect and key form.
    public init(serviceRoot: String, model: ServiceModel, nestsExpand: Bool = true) {
        self.init(
            serviceRoot: serviceRoot, dialect: model.dialect, nestsExpand: nestsExpand,
            keyAsSegment: model.keyAsSegment, keyTypes: { set in model.keyTypes(ofEntitySet: set) },
            addressed: { path in model.castingDerivedNavigations(path) },
            expanded: { path, expand in
                guard model.hasDerivedNavigations, let set = model.entitySet(of: path) else { return expand }
                return model.castingDerivedExpansions(expand, fromSet: set)
            })
    }

    /// `root + path + ?options` as text.
    public func url(_ path: ResourcePath, _ options: QueryOptions = QueryOptions()) -> String {
        var options = options
        if !options.expand.isEmpty { options.expand = expanded(path, options.expand) }
        if dialect == .v4, !nestsExpand {
            var firstLevel: [String] = []
            for path in options.expand {
                let name = QueryOptions.expandSegments(path).first ?? path
                if !firstLevel.contains(name) { firstLevel.append(name) }
            }
            options.expand = firstLevel
            // Such a service refuses options inside an expansion: its entities come whole.
            options.select = options.select.filter { !$0.contains("/") }
        }
        let query = options.queryText(for: dialect)
        let text = addressed(path).urlText(keyTypes: keyTypes, dialect: dialect, keyAsSegment: keyAsSegment)
        return serviceRoot + text + (query.isEmpty ? "" : "?" + query)
    }

    /// `url` with its v4 `$expand` cut to the first level (`$expand=A($expand=B),C` → `$expand=A,C`); nil when
    /// nothing in it nests.
    public static func flatteningExpand(_ url: String) -> String? {
        guard let start = url.range(of: "$expand=") else { return nil }
        let valueEnd = url[start.upperBound...].firstIndex(of: "&") ?? url.endIndex
        let value = url[start.upperBound..<valueEnd]
        guard value.contains("(") else { return nil }
        var depth = 0
        var flat = ""
        for character in value {
            switch character {
            case "(": depth += 1
            case ")": depth = max(0, depth - 1)
            default: if depth == 0 { flat.append(character) }
            }
        }
        return String(url[..<start.upperBound]) + flat + String(url[valueEnd...])
    }

    /// A literal for `value` of `type` as this builder's dialect spells it (unencoded), for `$filter` text.
    public func literal(_ value: ODataValue, as type: EdmPrimitiveType? = nil) -> String? {
        ODataLiteral.format(value, as: type, dialect: dialect)
    }

    /// The `$metadata` document's URL.
    public var metadataURL: String { serviceRoot + "$metadata" }

    /// The link between `parent` and `child` through the collection navigation `navigation`, to `DELETE` it (the
    /// entities stay): v2's `Person(1)/$links/Friends(2)`, v4's `Person(1)/Friends/$ref?$id=<child's URL>`.
    public func linkURL(parent: EntityKey, navigation: String, child: EntityKey) -> String {
        let parentPath = ResourcePath(parent)
        switch dialect {
        case .v2:
            let link = ResourcePath(segments: [ResourcePath.Segment(name: navigation, key: child.values)])
            return url(parentPath) + "/$links/"
                + link.urlText(
                    keyTypes: { _ in self.keyTypes(child.entitySet) },
                    dialect: dialect)
        case .v4:
            let id = PercentEncoding.encodeQueryValue(url(ResourcePath(child)))
            return url(parentPath.appending(navigation).appending("$ref")) + "?$id=" + id
        }
    }

    /// The `$count` of a collection path.
    public func countURL(_ path: ResourcePath, filter: String? = nil) -> String {
        url(path.appending("$count"), QueryOptions(filter: filter))
    }
}
