import Foundation
import ODataCore

/// One entity as the cache holds it: flat, identified by its canonical key.
public struct CachedEntity: Sendable, Hashable {
    /// The entity's key; the cache stores its ``ODataCore/EntityKey/canonical`` text, e.g. `Person(1)`.
    public var key: EntityKey
    public var entitySet: String
    /// Qualified type name, when the server said it.
    public var type: String?
    /// Structural properties, in the order first seen (later partial fetches append).
    public var properties: [ODataProperty]
    /// The entity's ETag, opaque.
    public var etag: String?
    /// When these values were last confirmed by the server (fetched or revalidated).
    public var fetchedAt: Date
    /// Properties whose values this read cut to what a screen can show (the screen reads
    /// return text of at most ``PropertyCodec/DisplayBound/screen``, ended with `…`);
    /// ``CacheDatabase/fullEntity(_:)`` reads them whole. Empty when nothing was cut.
    public var cutProperties: [String]
    /// Writes made here to this entity that the service has not settled yet: its values show them already.
    public var pendingWrites: Int
    /// Whether the properties are the whole entity as the service last sent it. False for an entity known only from
    /// `$select` answers (a list's prefetch of the next screen asks only for what that screen shows), or whose
    /// version changed in one (the fields that answer left out may be stale): a detail screen, a form or an
    /// export fetches it whole first.
    public var isComplete: Bool

    public init(
        key: EntityKey, entitySet: String, type: String?, properties: [ODataProperty], etag: String?, fetchedAt: Date,
        cutProperties: [String] = [], pendingWrites: Int = 0, isComplete: Bool = true
    ) {
        self.isComplete = isComplete
        self.pendingWrites = pendingWrites
        self.key = key
        self.entitySet = entitySet
        self.type = type
        self.properties = properties
        self.etag = etag
        self.fetchedAt = fetchedAt
        self.cutProperties = cutProperties
    }

    /// Names of the properties known for this entity (a `$select` fetch knows fewer).
    public var presentFields: [String] { properties.map(\.name) }

    /// The value of property `name`, if known.
    public subscript(name: String) -> ODataValue? {
        properties.first { $0.name == name }?.value
    }
}
