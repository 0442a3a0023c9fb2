/// One entity from a verbose-JSON payload, with its expanded navigations.
public struct ODataEntity: Sendable, Hashable {
    /// `__metadata`, when the server sent it (it may be absent).
    public var metadata: EntityMetadata
    /// The entity set it belongs to, when known (from its URI or the request).
    public var entitySet: String?
    /// Its identity, when known (from `__metadata.uri`, else from key properties and the model).
    public var key: EntityKey?
    /// Structural properties, in the order the server sent them.
    public var properties: [ODataProperty]
    /// Navigation properties: deferred links or expanded content.
    public var navigations: [NavigationLink]

    public init(
        metadata: EntityMetadata = EntityMetadata(), entitySet: String? = nil, key: EntityKey? = nil,
        properties: [ODataProperty] = [], navigations: [NavigationLink] = []
    ) {
        self.metadata = metadata
        self.entitySet = entitySet
        self.key = key
        self.properties = properties
        self.navigations = navigations
    }

    /// The value of property `name`, if the payload had it.
    public subscript(name: String) -> ODataValue? {
        properties.first { $0.name == name }?.value
    }

    /// The navigation called `name`, if the payload had it.
    public func navigation(_ name: String) -> NavigationContent? {
        navigations.first { $0.name == name }?.content
    }
}

/// `__metadata` of an entity.
public struct EntityMetadata: Sendable, Hashable {
    public var uri: String?
    /// Qualified type name, e.g. `edmexampleModel.Person`.
    public var type: String?
    /// The entity's ETag, opaque.
    public var etag: String?

    public init(uri: String? = nil, type: String? = nil, etag: String? = nil) {
        self.uri = uri
        self.type = type
        self.etag = etag
    }
}

/// A navigation property of an entity as the payload had it.
public struct NavigationLink: Sendable, Hashable {
    public var name: String
    public var content: NavigationContent

    public init(name: String, content: NavigationContent) {
        self.name = name
        self.content = content
    }
}

/// What a payload says about one navigation.
public enum NavigationContent: Sendable, Hashable {
    /// Not expanded: only where to fetch it. The relation is unknown, not empty.
    case deferred(uri: String)
    /// An expanded to-one navigation.
    case entity(ODataEntity)
    /// An expanded to-one navigation with no entity.
    case null
    /// An expanded to-many navigation (v1 plain array or v2 `results`).
    case collection(ODataCollection)
}

/// A list of entities: a feed, or an expanded to-many navigation.
public struct ODataCollection: Sendable, Hashable {
    public var entities: [ODataEntity]
    /// `__count` (with `$inlinecount=allpages`), whether sent as string or number.
    public var count: Int64?
    /// `__next`: where the next page is, whether sent as a string or `{"uri": …}`.
    public var nextLink: String?
    /// Where to ask what changed since this answer (change tracking): v4 `@odata.deltaLink`, v2 `__delta`.
    public var deltaLink: String?
    /// Entities a delta answer says left the collection (deleted, or no longer matching it): v4 `@removed` entries
    /// (and 4.0's `$deletedEntity`), v2 entries whose `__metadata` says `"deleted": true`. Not in ``entities``.
    public var removed: [EntityKey] = []

    public init(
        entities: [ODataEntity] = [], count: Int64? = nil, nextLink: String? = nil, deltaLink: String? = nil,
        removed: [EntityKey] = []
    ) {
        self.entities = entities
        self.count = count
        self.nextLink = nextLink
        self.deltaLink = deltaLink
        self.removed = removed
    }
}

/// A decoded response body.
public enum ODataPayload: Sendable, Hashable {
    case entity(ODataEntity)
    case collection(ODataCollection)
    /// A primitive (`{"d": 42}`, a `$count`).
    case value(ODataValue)
}
