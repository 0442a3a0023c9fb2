import Foundation
import GRDB
import ODataCore

/// The outbox states as its SQL names them (``OutboxEntry/State/sql``).
private let queuedStates = OutboxEntry.State.queuedSQL

/// Creates in the outbox: a new entity lives here under a temporary key (``EntityKey/temporary(in:)``) from the
/// moment it is saved, shown first in the list or relation it was added to; when the service answers `201`, its
/// key replaces the temporary one everywhere (the entity row, list rows, relations, queued writes).
extension CacheWriter {
    /// Records a create of `key` (temporary) in `entitySet` with `properties`, shown at once in `shownIn` (first
    /// in its list; first in the parent's relation, through `shownIn.member` — a new link entity — for a row
    /// reached through one). `bind` names the entity a new link entity links (`shownIn.member`'s create binds
    /// it). Returns the entry's id.
    public func enqueueCreate(
        _ key: EntityKey, entitySet: String, properties: [ODataProperty], shownIn: ShownIn?,
        requestID: String, at date: Date
    ) throws -> Int64 {
        guard key.isTemporary else { throw OutboxError(description: "\(key) is not a key made for a new entity.") }
        try place(key, entitySet: entitySet, properties: properties, shownIn: shownIn, at: date)
        try insertOutbox(
            key, entitySet: entitySet, kind: .create, changes: properties, shownIn: shownIn, bind: nil,
            requestID: requestID, at: date)
        return db.lastInsertedRowID
    }

    /// Records a create of the link entity `link` (temporary) in `entitySet`, joining `parent`'s `navigation` and
    /// linking `target` through `bindNavigation`: an existing entity linked to a second parent (a car to a second
    /// owner), or one made just before (then the link waits for its key). Returns the entry's id.
    public func enqueueLink(
        _ link: EntityKey, entitySet: String, parent: EntityKey, navigation: String, bindNavigation: String,
        target: EntityKey, properties: [ODataProperty] = [], requestID: String, at date: Date
    ) throws -> Int64 {
        guard link.isTemporary else { throw OutboxError(description: "\(link) is not a key made for a new entity.") }
        if !target.isTemporary, try CacheQueries.entity(db, key: target.canonical, bound: nil) == nil {
            throw OutboxError(description: "\(target) is not in the cache, so it cannot be linked here.")
        }
        let shownIn = ShownIn(parent: parent, navigation: navigation)
        try place(link, entitySet: entitySet, properties: properties, shownIn: shownIn, at: date)
        try setRelation(parent: link.canonical, navigation: bindNavigation, keys: [target.canonical], at: date)
        try insertOutbox(
            link, entitySet: entitySet, kind: .create, changes: properties, shownIn: shownIn,
            bind: (bindNavigation, target), requestID: requestID, at: date)
        return db.lastInsertedRowID
    }

    /// The service made the entity a create asked for, under `serverKey`: that key replaces the temporary one
    /// everywhere, and the entity takes the service's copy and ETag. It stays first in the list it was added to
    /// until the list is fetched again (then it is where the service's order puts it).
    public func settleCreate(
        _ id: Int64, serverKey: EntityKey, type: String?, serverCopy: [ODataProperty]?, etag: String?,
        at date: Date = Date()
    ) throws {
        guard let entry = try CacheQueries.outboxEntry(db, id: id), entry.kind == .create else { return }
        let temporary = entry.entityKey
        try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id])
        let current = try CacheQueries.entity(db, key: temporary.canonical, bound: nil)
        var properties = serverCopy ?? current?.properties ?? entry.changes
        if serverCopy != nil {
            // The service's copy predates the changes made to the new entity while it was on its way: they still
            // show (they are queued, and go next).
            for later in try CacheQueries.outbox(
                db, where: "entityKey = ? AND kind = 'update' AND state IN \(queuedStates) ORDER BY id",
                arguments: [temporary.canonical])
            {
                properties = Self.merge(properties, with: later.changes)
            }
        }
        let stillPending = max(0, (current?.pendingWrites ?? 1) - 1)
        try db.execute(sql: "DELETE FROM entity WHERE key = ?", arguments: [temporary.canonical])
        // Whole only when the service sent its copy: what was typed leaves out what the service sets.
        try upsertEntity(
            key: serverKey, entitySet: entry.entitySet, type: type ?? current?.type, properties: properties,
            etag: etag, at: date, partial: serverCopy == nil)
        try db.execute(
            sql: "UPDATE entity SET pending = ?, settledAt = ? WHERE key = ?",
            arguments: [stillPending, date.timeIntervalSince1970, serverKey.canonical])
        try replaceKey(temporary, with: serverKey, shownIn: entry.shownIn, at: date)
        // Later writes to it carry on against the service's ETag.
        if let etag {
            try db.execute(
                sql: "UPDATE outbox SET baseEtag = ? WHERE entityKey = ? AND baseEtag IS NULL",
                arguments: [etag, serverKey.canonical])
        }
    }

    /// The key the service gave the entity created under `key`, when `key` is a temporary one it has replaced;
    /// else `key`. A screen may still hold the temporary key (a form opened before the service's answer came): a
    /// write made with it goes to the entity the service made.
    public func madeKey(of key: EntityKey) throws -> EntityKey {
        guard key.isTemporary,
            let made = try String.fetchOne(
                db, sql: "SELECT made FROM madeKey WHERE temporary = ?", arguments: [key.canonical]),
            let parsed = EntityKey(stored: made)
        else { return key }
        return parsed
    }

    /// `temporary` becomes `real` wherever it is: list rows, relations that hold it or hang from it, queued writes.
    /// A change made here at `date`: a fetch sent before then does not take the entity out (``writeListPage``).
    func replaceKey(_ temporary: EntityKey, with real: EntityKey, shownIn: ShownIn?, at date: Date) throws {
        let (old, new) = (temporary.canonical, real.canonical)
        // Remembered for the screens that still hold the temporary key (a day is longer than any form stays open).
        try db.execute(
            sql: "INSERT OR REPLACE INTO madeKey (temporary, made, madeAt) VALUES (?, ?, ?)",
            arguments: [old, new, date.timeIntervalSince1970])
        try db.execute(
            sql: "DELETE FROM madeKey WHERE madeAt < ?", arguments: [date.timeIntervalSince1970 - 86_400])
        if let list = shownIn?.list, let listId = try CacheQueries.listId(db, key: list) {
            try db.execute(
                sql: "UPDATE listRow SET entityKey = ? WHERE listId = ? AND entityKey = ?",
                arguments: [new, listId, old])
            try db.execute(
                sql: "UPDATE list SET changedHereAt = ? WHERE id = ?", arguments: [date.timeIntervalSince1970, listId])
        }
        // The relations it joined: its parent's, and those of the link entities that bind it.
        var holders: [(String, String)] = []
        if let parent = shownIn?.parent, let navigation = shownIn?.navigation {
            holders.append((parent.canonical, navigation))
        }
        for row in try Row.fetchAll(
            db, sql: "SELECT entityKey, bindNavigation FROM outbox WHERE bindKey = ?", arguments: [old])
        {
            holders.append((row[0], row[1]))
        }
        for (parent, navigation) in holders {
            guard let (keys, at) = try CacheQueries.relationKeys(db, parent: parent, navigation: navigation) else {
                continue
            }
            let replaced = keys.map { $0 == old ? new : $0 }
            guard replaced != keys else { continue }
            try setRelation(parent: parent, navigation: navigation, keys: replaced, at: at, changedAt: date)
        }
        // Relations hanging from it (a new link entity's target; children added under a new entity).
        try db.execute(sql: "DELETE FROM relation WHERE parentKey = ?", arguments: [new])
        try db.execute(sql: "UPDATE relation SET parentKey = ? WHERE parentKey = ?", arguments: [new, old])
        try db.execute(sql: "UPDATE outbox SET entityKey = ? WHERE entityKey = ?", arguments: [new, old])
        try db.execute(sql: "UPDATE outbox SET bindKey = ? WHERE bindKey = ?", arguments: [new, old])
        try db.execute(sql: "UPDATE outbox SET parentKey = ? WHERE parentKey = ?", arguments: [new, old])
        try db.execute(sql: "UPDATE outbox SET member = ? WHERE member = ?", arguments: [new, old])
    }

    /// A new entity shows: its row (pending), first in its list, first among its parent's children.
    func place(
        _ key: EntityKey, entitySet: String, properties: [ODataProperty], shownIn: ShownIn?, at date: Date
    ) throws {
        // (a new entity of a derived type says which in `@odata.type`: its type, not a value of it)
        try upsertEntity(
            key: key, entitySet: entitySet, type: properties.statedType,
            properties: properties.filter { !$0.isInstanceAnnotation },
            etag: nil, at: date, partial: false)
        try db.execute(sql: "UPDATE entity SET pending = pending + 1 WHERE key = ?", arguments: [key.canonical])
        if let list = shownIn?.list { try insertFirstRow(key, in: list, at: date) }
        if let parent = shownIn?.parent, let navigation = shownIn?.navigation {
            let known = try CacheQueries.relationKeys(db, parent: parent.canonical, navigation: navigation)
            let child = shownIn?.member ?? key
            try setRelation(
                parent: parent.canonical, navigation: navigation, keys: [child.canonical] + (known?.keys ?? []),
                at: known?.fetchedAt ?? Date(timeIntervalSince1970: 0))
        }
    }

    /// A new entity that will not be made (refused, or dropped): it leaves wherever it was shown.
    func unplace(_ entry: OutboxEntry) throws {
        let key = entry.entityKey
        if let list = entry.shownIn?.list { try removeRow(key, from: list) }
        if let parent = entry.shownIn?.parent, let navigation = entry.shownIn?.navigation {
            try removeChild(entry.shownIn?.member ?? key, from: parent, navigation: navigation)
        }
        try db.execute(sql: "DELETE FROM relation WHERE parentKey = ?", arguments: [key.canonical])
        try db.execute(sql: "DELETE FROM entity WHERE key = ?", arguments: [key.canonical])
    }

    /// Puts `key` first in a stored list: the rows move down one place, the counts follow. A list not stored yet
    /// (added to before its first page arrived) starts with it, unfetched, so its first page keeps it.
    func insertFirstRow(_ key: EntityKey, in list: ListKey, at date: Date) throws {
        let id = try ensureList(list)
        // As in `removeRow`: through negative positions, so the primary key never collides.
        try db.execute(sql: "UPDATE listRow SET position = -(position + 1) WHERE listId = ?", arguments: [id])
        try db.execute(
            sql: "UPDATE listRow SET position = -position WHERE listId = ? AND position < 0", arguments: [id])
        try db.execute(
            sql: "INSERT INTO listRow (listId, position, entityKey, fetchedAt) VALUES (?, 0, ?, ?)",
            arguments: [id, key.canonical, date.timeIntervalSince1970])
        try db.execute(
            sql: """
                UPDATE list SET fetchedCount = fetchedCount + 1, changedHereAt = ?,
                    totalCount = CASE WHEN totalCount IS NULL THEN NULL ELSE totalCount + 1 END,
                    nextPosition = CASE WHEN nextPosition > 0 THEN nextPosition + 1 ELSE nextPosition END
                WHERE id = ?
                """,
            arguments: [date.timeIntervalSince1970, id])
    }

    /// The rows of positions `range` that a page fetched at `requestedAt` must not take out of a list: new
    /// entities not yet made (temporary keys), and those whose create settled after the request went out. Only
    /// looked for in a list a write made here changed.
    func rowsMadeHere(listId: Int64, range: Range<Int>, requestedAt: Date?) throws -> [String] {
        guard
            let changed = try Double.fetchOne(
                db, sql: "SELECT changedHereAt FROM list WHERE id = ?", arguments: [listId])
        else { return [] }
        let sent = requestedAt?.timeIntervalSince1970 ?? .greatestFiniteMagnitude
        return try String.fetchAll(
            db,
            sql: """
                SELECT listRow.entityKey FROM listRow LEFT JOIN entity ON entity.key = listRow.entityKey
                WHERE listId = ? AND position >= ? AND position < ?
                    AND (instr(listRow.entityKey, ?) > 0 OR (? > ? AND entity.settledAt > ?))
                ORDER BY position
                """,
            arguments: [listId, range.lowerBound, range.upperBound, EntityKey.temporaryMarker, changed, sent, sent])
    }

    func insertOutbox(
        _ key: EntityKey, entitySet: String, kind: OutboxEntry.Kind, changes: [ODataProperty], shownIn: ShownIn?,
        bind: (navigation: String, key: EntityKey)?, requestID: String, at date: Date
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO outbox (entityKey, entitySet, kind, changes, base, baseEtag, requestID, state, createdAt,
                    listKey, parentKey, navigation, member, bindNavigation, bindKey, bindsNew)
                VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                key.canonical, entitySet, kind.rawValue, Self.encode(changes), Self.encode([]), requestID,
                OutboxEntry.State.pending.rawValue, date.timeIntervalSince1970, shownIn?.list?.canonical,
                shownIn?.parent?.canonical, shownIn?.navigation, shownIn?.member?.canonical, bind?.navigation,
                bind?.key.canonical, bind?.key.isTemporary ?? false,
            ]
        )
    }
}

extension CacheWriter {
    /// The service made create `id` as `draft` and did not activate it: sent again, that draft is activated (nil: it
    /// is gone from the service, and the create makes a new one).
    public func setCreateDraft(_ id: Int64, draft: EntityKey?) throws {
        try db.execute(
            sql: "UPDATE outbox SET draft = ? WHERE id = ? AND kind = 'create'", arguments: [draft?.canonical, id])
    }
}
