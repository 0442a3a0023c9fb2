import Foundation
import GRDB
import ODataCore

/// The write API: what one ``CacheDatabase/write(_:)`` transaction may do. **Used only by Sync**; screens hold a
/// ``CacheReader``, which has none of it.
///
/// Writes are flat upserts keyed by canonical keys; the hot statements are prepared once
/// per transaction (``WriteStatements``), so normalising a page costs a handful of
/// prepared-statement executions per entity.
public struct CacheWriter {
    let db: Database
    let statements: WriteStatements

    init(db: Database) {
        self.db = db
        self.statements = WriteStatements(db)
    }

    /// Inserts or updates one entity.
    ///
    /// When `partial` (a `$select` response) the incoming properties merge into the
    /// known ones: known fields keep their place, new values replace old, fields the
    /// response left out are never erased, and a missing etag keeps the stored one. The entity stays complete
    /// (``CachedEntity/isComplete``) only when it was and both copies carry the same ETag: a new version means the
    /// fields left out may have changed too. A first partial copy is not complete.
    /// Otherwise the incoming properties replace the stored ones. An entity with writes made here that the
    /// service has not settled keeps its values and ETag (the optimistic copy stays on screen); only its
    /// fetched-at moves. So does one whose write the service settled after `requestedAt`, when the request that
    /// brought this copy went out: that copy was read before the write and would undo it on screen.
    public func upsertEntity(
        key: EntityKey, entitySet: String, type: String?, properties: [ODataProperty], etag: String?, at date: Date,
        partial: Bool, requestedAt: Date? = nil
    ) throws {
        let key = key.canonical
        var properties = properties
        var etag = etag
        var type = type
        var complete = !partial
        if partial, let existing = try CacheQueries.entity(db, key: key, bound: nil) {
            properties = Self.merge(existing.properties, with: properties)
            complete = existing.isComplete && etag != nil && etag == existing.etag
            etag = etag ?? existing.etag
            type = type ?? existing.type
        }
        try statements.run(.upsertEntity) { bind in
            bind.text(1, key)
            bind.text(2, entitySet)
            bind.text(3, type)
            bind.blob(4) { PropertyCodec.encode(properties, into: &$0) }
            bind.text(5, etag)
            bind.double(6, date.timeIntervalSince1970)
            bind.double(7, requestedAt?.timeIntervalSince1970 ?? .greatestFiniteMagnitude)
            bind.int(8, complete ? 1 : 0)
        }
    }

    /// Known fields in their order with incoming values, then fields seen for the first time.
    static func merge(_ known: [ODataProperty], with incoming: [ODataProperty]) -> [ODataProperty] {
        var result = known
        var index: [String: Int] = [:]
        for (offset, property) in known.enumerated() { index[property.name] = offset }
        for property in incoming {
            if let offset = index[property.name] {
                result[offset].value = property.value
            } else {
                index[property.name] = result.count
                result.append(property)
            }
        }
        return result
    }

    /// Replaces the whole relation `(parent, navigation)` with `children` in order and
    /// marks it known. An empty array records an *empty* relation (a `null` to-one or
    /// an empty expanded collection). The children of new entities made here stay: those not yet made (temporary
    /// keys), and those made after `requestedAt`, when the request that brought `children` went out.
    public func replaceRelation(
        parent: EntityKey, navigation: String, children: [EntityKey], at date: Date, requestedAt: Date? = nil
    ) throws {
        let keys = ChildKeys.encode(children.map(\.canonical))
        try statements.run(.upsertRelation) { bind in
            bind.text(1, parent.canonical)
            bind.text(2, navigation)
            bind.text(3, utf8: keys)
            bind.double(4, date.timeIntervalSince1970)
            bind.double(5, requestedAt?.timeIntervalSince1970 ?? .greatestFiniteMagnitude)
        }
    }

    /// Confirms an entity unchanged (a 304): only fetched-at moves.
    public func touchEntity(key: EntityKey, at date: Date) throws {
        try db.cachedStatement(sql: "UPDATE entity SET fetchedAt = ? WHERE key = ?")
            .execute(arguments: [date.timeIntervalSince1970, key.canonical])
    }

    /// Confirms a relation unchanged (a 304).
    public func touchRelation(parent: EntityKey, navigation: String, at date: Date) throws {
        try db.cachedStatement(sql: "UPDATE relation SET fetchedAt = ? WHERE parentKey = ? AND navigation = ?")
            .execute(arguments: [date.timeIntervalSince1970, parent.canonical, navigation])
    }

    /// Stores the HTTP ETag a URL answered with, for later `If-None-Match`.
    public func setValidator(url: String, etag: String?, at date: Date) throws {
        if let etag {
            try db.cachedStatement(
                sql: """
                    INSERT INTO validator (url, etag, storedAt) VALUES (?, ?, ?)
                    ON CONFLICT (url) DO UPDATE SET etag = excluded.etag, storedAt = excluded.storedAt
                    """
            ).execute(arguments: [url, etag, date.timeIntervalSince1970])
        } else {
            try db.cachedStatement(sql: "DELETE FROM validator WHERE url = ?").execute(arguments: [url])
        }
    }

    /// Stores the `$metadata` document for offline starts.
    public func storeMetadataDocument(_ bytes: [UInt8], at date: Date) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO metadataDocument (id, document, fetchedAt) VALUES (1, ?, ?)",
            arguments: [Data(bytes), date.timeIntervalSince1970]
        )
    }

    /// Replaces the annotation documents the service advertised (by the URL each came from) with `documents`.
    public func storeAnnotationDocuments(_ documents: [(source: String, document: [UInt8])], at date: Date) throws {
        try db.execute(sql: "DELETE FROM annotationDocument")
        for (source, document) in documents {
            try db.execute(
                sql: "INSERT OR REPLACE INTO annotationDocument (source, document, fetchedAt) VALUES (?, ?, ?)",
                arguments: [source, Data(document), date.timeIntervalSince1970])
        }
    }
}
