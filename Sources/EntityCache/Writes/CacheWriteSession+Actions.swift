import Foundation
import GRDB
import ODataCore

/// The outbox states as its SQL names them (``OutboxEntry/State/sql``).
private let queuedStates = OutboxEntry.State.queuedSQL

/// Actions in the outbox (issue 36): queued like a write, nothing changed here until the service has run them, then
/// the entity read again; and what is kept when an answer is lost or a version refused.
extension CacheWriteSession {
    /// Records an invocation of the action `operation` on `key` with `parameters`, queued under `requestID` after
    /// the writes to `key` made before it; nothing in the cache changes until the service answers. `baseEtag`: the
    /// version it was invoked on (`If-Match`), else the one cached now. Returns the entry's id.
    public func enqueueAction(
        _ key: EntityKey, operation: String, parameters: [ODataProperty], baseEtag: String? = nil, requestID: String,
        at date: Date
    ) throws -> Int64 {
        guard let current = try CacheQueries.entity(db, key: key.canonical, bound: nil) else {
            throw OutboxError(description: "\(key.canonical) is not in the cache, so nothing can be done to it here.")
        }
        try db.execute(
            sql: """
                INSERT INTO outbox (entityKey, entitySet, kind, changes, base, baseEtag, requestID, state, createdAt,
                    operation)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                key.canonical, current.entitySet, OutboxEntry.Kind.action.rawValue, Self.encode(parameters),
                Self.encode([]), baseEtag ?? current.etag, requestID, OutboxEntry.State.pending.rawValue,
                date.timeIntervalSince1970, operation,
            ]
        )
        return db.lastInsertedRowID
    }

    /// An action ran on `key`, which the service then gave as `copy` under `etag`: the writes queued after it go
    /// against that version (`movesQueued`; not after a refusal, where the version is someone else's), and the
    /// cached entity shows the service's values where no write of mine waits on them (those keep my values).
    public func actionRan(
        on key: EntityKey, copy: [ODataProperty], etag: String?, movesQueued: Bool = true, at date: Date
    ) throws {
        if let etag, movesQueued {
            try db.execute(
                sql: "UPDATE outbox SET baseEtag = ? WHERE entityKey = ? AND state IN \(queuedStates)",
                arguments: [etag, key.canonical])
        }
        guard let current = try CacheQueries.entity(db, key: key.canonical, bound: nil) else { return }
        if let etag {
            try db.execute(sql: "UPDATE entity SET etag = ? WHERE key = ?", arguments: [etag, key.canonical])
        }
        let queued = try CacheQueries.outbox(
            db, where: "entityKey = ? AND kind = 'update' AND state IN \(queuedStates)", arguments: [key.canonical])
        let mine = Set(queued.flatMap { $0.changes.map(\.name) })
        let theirs = copy.filter { !mine.contains($0.name) }
        try setProperties(key, Self.merge(current.properties, with: theirs), pendingDelta: 0)
    }

    /// What an action's side effects name (issue 36): each relation the cache holds along `paths` (navigations from
    /// `key`, through the entities each hop reaches), marked not fresh. A hop's entities are those its relation
    /// holds, and those the cache knows only from the other end (entities whose `partner` relation holds the one
    /// before: a car's ownerships, cached from the person's side, name the car as theirs). Marked rows stay shown
    /// until read again; a screen showing one reads it, any other does when next shown. At most `limit` relations are
    /// marked, so a path through a large cache stays cheap. Returns the entities whose relations were marked.
    @discardableResult
    public func markStale(
        from key: EntityKey, along paths: [[NavigationHop]], limit: Int = 10_000
    ) throws -> [EntityKey] {
        var markedParents: [EntityKey] = []
        var marked = 0
        for path in paths {
            var parents = [key.canonical]
            for hop in path {
                var next: [String] = []
                var seen = Set<String>()
                func reach(_ child: String) {
                    if seen.insert(child).inserted { next.append(child) }
                }
                for parent in parents where marked < limit {
                    if let (children, _) = try CacheQueries.relationKeys(db, parent: parent, navigation: hop.navigation)
                    {
                        try db.execute(
                            sql: "UPDATE relation SET fetchedAt = 0 WHERE parentKey = ? AND navigation = ?",
                            arguments: [parent, hop.navigation])
                        marked += 1
                        if let parentKey = EntityKey(canonical: parent), !markedParents.contains(parentKey) {
                            markedParents.append(parentKey)
                        }
                        children.forEach(reach)
                    }
                    if let partner = hop.partner {
                        try String.fetchAll(
                            db,
                            sql: """
                                SELECT r.parentKey FROM relation r, json_each(r.childKeys) j
                                WHERE r.navigation = ? AND j.value = ?
                                """,
                            arguments: [partner, parent]
                        ).forEach(reach)
                    }
                }
                parents = next
            }
        }
        return markedParents
    }

    /// An attempt of write `id` got no answer from a service that keeps no request ids: it may have been applied.
    public func markOutcomeUnknown(_ id: Int64) throws {
        try db.execute(sql: "UPDATE outbox SET outcomeUnknown = 1 WHERE id = ?", arguments: [id])
    }

    /// The version a refused action goes against when sent again (the one the service had when it refused it).
    public func setActionVersion(_ id: Int64, etag: String) throws {
        try db.execute(sql: "UPDATE outbox SET baseEtag = ? WHERE id = ? AND kind = 'action'", arguments: [etag, id])
    }
}

/// One step of a path through the cache's relations: a navigation, and the one back from where it leads (nil where
/// there is none).
public struct NavigationHop: Sendable, Hashable {
    public var navigation: String
    public var partner: String?

    public init(_ navigation: String, partner: String? = nil) {
        self.navigation = navigation
        self.partner = partner
    }
}
