import Foundation
import GRDB
import ODataCore

/// The outbox states as its SQL names them (``OutboxEntry/State/sql``).
private let queuedStates = OutboxEntry.State.queuedSQL

/// Actions in the outbox (issue 36): queued like a write, nothing changed here until the service has run them, then
/// the entity read again; and what is kept when an answer is lost or a version refused.
extension CacheWriter {
    /// Records an invocation of the action `operation` on `key` with `parameters`, queued under `requestID` after
    /// the writes to `key` made before it; nothing in the cache changes until the service answers. `baseEtag`: the
    /// version it was invoked on (`If-Match`), else the one cached now. Returns the entry's id.
    ///
    /// An action on a list or on the service is queued under its call's key (``ODataCore/EntityKey/call(on:)``),
    /// its own: it waits for no write, and none waits for it.
    public func enqueueAction(
        _ key: EntityKey, operation: String, parameters: [ODataProperty], baseEtag: String? = nil, requestID: String,
        at date: Date
    ) throws -> Int64 {
        if key.isCall {
            try db.execute(
                sql: """
                    INSERT INTO outbox (entityKey, entitySet, kind, changes, base, requestID, state, createdAt,
                        operation)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    key.canonical, key.entitySet, OutboxEntry.Kind.action.rawValue, Self.encode(parameters),
                    Self.encode([]), requestID, OutboxEntry.State.pending.rawValue, date.timeIntervalSince1970,
                    operation,
                ]
            )
            return db.lastInsertedRowID
        }
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
    /// Keeps what the service said of the size of a stream of `key` (`name`: ``MediaStream/lengthKey``) beside its
    /// values, leaving how complete the copy is and its version as they are; nothing when `key` is not cached. A
    /// copy of the entity read again drops it (its stream may have changed too).
    public func keepStreamLength(_ key: EntityKey, name: String, length: Int64) throws {
        guard let current = try CacheQueries.entity(db, key: key.canonical, bound: nil) else { return }
        let kept = ODataProperty(name: name, value: .int(length))
        try setProperties(key, Self.merge(current.properties, with: [kept]), pendingDelta: 0)
    }

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

    /// What an action's side effects name (issue 36): the relations at the end of each of `paths` (navigations from
    /// `key`), marked not fresh at `date`; those along the way are only walked. A hop reaches the entities its
    /// relation holds, and those of its target set the cache knows only from the other end (entities whose `partner`
    /// relation holds one before: a car's ownerships, cached from their people, name the car as theirs). Marked rows
    /// stay shown until read again; a screen showing one reads it, any other does when next shown, and an answer to a
    /// read sent before `date` leaves them not fresh. Each hop walks at most `limit` entities and the whole at most
    /// `limit` relations, each hop's look from the other end one query over its target set's keys. Returns the
    /// entities whose relations were marked.
    @discardableResult
    public func markStale(
        from key: EntityKey, along paths: [[NavigationHop]], at date: Date, limit: Int = 1_000
    ) throws -> [EntityKey] {
        var marked: [EntityKey] = []
        var markedKeys = Set<String>()
        for path in paths where !path.isEmpty {
            var parents = [key.canonical]
            for (index, hop) in path.enumerated() {
                if index == path.count - 1 {
                    for parent in parents where marked.count < limit {
                        try db.execute(
                            sql: """
                                UPDATE relation SET fetchedAt = 0, changedHereAt = max(coalesce(changedHereAt, 0), ?)
                                WHERE parentKey = ? AND navigation = ?
                                """,
                            arguments: [date.timeIntervalSince1970, parent, hop.navigation])
                        guard db.changesCount > 0, markedKeys.insert(parent).inserted,
                            let parentKey = EntityKey(stored: parent)
                        else { continue }
                        marked.append(parentKey)
                    }
                    break
                }
                var next: [String] = []
                var seen = Set<String>()
                func reach(_ child: String) {
                    if next.count < limit, seen.insert(child).inserted { next.append(child) }
                }
                for parent in parents {
                    try CacheQueries.relationKeys(db, parent: parent, navigation: hop.navigation)?.keys.forEach(reach)
                }
                if let partner = hop.partner, let target = hop.targetSet, !parents.isEmpty {
                    // (the target set's keys are a range of the relation's primary key)
                    try String.fetchAll(
                        db,
                        sql: """
                            SELECT DISTINCT r.parentKey FROM relation r, json_each(r.childKeys) j
                            WHERE r.parentKey >= ? AND r.parentKey < ? AND r.navigation = ? AND json_valid(r.childKeys)
                                AND j.value IN (SELECT value FROM json_each(?))
                            LIMIT ?
                            """,
                        arguments: [
                            target + "(", target + ")", partner,
                            String(decoding: ChildKeys.encode(parents), as: UTF8.self), limit,
                        ]
                    ).forEach(reach)
                }
                parents = next
            }
        }
        return marked
    }

    /// An action on a list of `entitySet` ran at `date` (issue 36): the set's own lists (`Set`, filtered or sorted:
    /// `Set?…`), and its lists narrowed to a derived type (`Set/NS.Type`, `Set/NS.Type?…`, issue 37), are marked not
    /// fresh (their rows stay shown until read again). Returns the lists marked.
    @discardableResult
    public func markListsStale(ofSet entitySet: String, at date: Date) throws -> [ListKey] {
        let (prefix, cast) = (entitySet + "?", entitySet + "/")
        let keys = try String.fetchAll(
            db, sql: "SELECT listKey FROM list WHERE listKey = ? OR substr(listKey, 1, ?) IN (?, ?)",
            arguments: [entitySet, prefix.unicodeScalars.count, prefix, cast]
        ).filter { ListKey.namesOwnList($0, of: entitySet) }
        for key in keys {
            try db.execute(
                sql:
                    "UPDATE list SET fetchedAt = 0, changedHereAt = max(coalesce(changedHereAt, 0), ?) WHERE listKey = ?",
                arguments: [date.timeIntervalSince1970, key])
            try db.execute(
                sql: "UPDATE listRow SET fetchedAt = 0 WHERE listId = (SELECT id FROM list WHERE listKey = ?)",
                arguments: [key])
        }
        return keys.map(ListKey.init(canonical:))
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

/// One step of a path through the cache's relations: a navigation, the entity set it leads to, and the navigation
/// back from there (nil where either is not known).
public struct NavigationHop: Sendable, Hashable {
    public var navigation: String
    public var targetSet: String?
    public var partner: String?

    public init(_ navigation: String, to targetSet: String? = nil, partner: String? = nil) {
        self.navigation = navigation
        self.targetSet = targetSet
        self.partner = partner
    }
}
