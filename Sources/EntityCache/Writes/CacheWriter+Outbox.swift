import Foundation
import GRDB
import ODataCore

/// The outbox states as its SQL names them (``OutboxEntry/State/sql``).
private let pendingState = OutboxEntry.State.pending.sql
private let sendingState = OutboxEntry.State.sending.sql
private let failedState = OutboxEntry.State.failed.sql
private let conflictState = OutboxEntry.State.conflict.sql
private let queuedStates = OutboxEntry.State.queuedSQL

/// Why a write could not be recorded.
public struct OutboxError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// The outbox: writes made here, each recorded in the same transaction as the change it makes to the cached
/// entity, so that a crash at any instant loses no accepted edit and leaves no half-applied one.
extension CacheWriter {
    /// Records an update of `key`: its cached values take `changes` at once (the screen shows them in its next
    /// frame, marked pending), and the write is queued under `requestID`. Returns the entry's id.
    /// `baseEtag`: the version the change was made on, when the screen knew it (else the one cached now).
    public func enqueueUpdate(
        _ key: EntityKey, changes: [ODataProperty], baseEtag: String? = nil, requestID: String, at date: Date
    ) throws -> Int64 {
        guard !changes.isEmpty else { throw OutboxError(description: "Nothing was changed.") }
        guard let current = try CacheQueries.entity(db, key: key.canonical, bound: nil) else {
            throw OutboxError(description: "\(key.canonical) is not in the cache, so it cannot be changed here.")
        }
        try setProperties(key, Self.merge(current.properties, with: changes), pendingDelta: 1)
        try db.execute(
            sql: """
                INSERT INTO outbox (entityKey, entitySet, kind, changes, base, baseEtag, requestID, state, createdAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                key.canonical, current.entitySet, OutboxEntry.Kind.update.rawValue, Self.encode(changes),
                Self.encode(current.properties), baseEtag ?? current.etag, requestID,
                OutboxEntry.State.pending.rawValue,
                date.timeIntervalSince1970,
            ]
        )
        return db.lastInsertedRowID
    }

    /// A delete of a draft on the service (issue 36): one a dropped create left, or the one a form left without
    /// saving. The draft is deleted whatever its version (`If-Match: *`); a service that no longer holds it answers
    /// 404, which settles it. With `active`, the draft's active entity, it is sent in that entity's turn: a change of
    /// the active entity saved after it (which makes a draft of its own) waits for it, and one saved before goes
    /// first.
    public func enqueueDraftDiscard(
        _ draft: EntityKey, of active: EntityKey? = nil, entitySet: String, requestID: String, at date: Date
    ) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO outbox (
                    entityKey, entitySet, kind, changes, base, baseEtag, requestID, state, createdAt, orderKey)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                draft.canonical, entitySet, OutboxEntry.Kind.delete.rawValue, Self.encode([]), Self.encode([]), "*",
                requestID, OutboxEntry.State.pending.rawValue, date.timeIntervalSince1970, active?.canonical,
            ]
        )
        return db.lastInsertedRowID
    }

    /// Records a delete of `key`: it leaves the list and the relation it was shown in at once (the rows after it
    /// move up), and the delete is queued under `requestID`. The entity's row stays, marked pending, until the
    /// service settles it. Returns the entry's id.
    public func enqueueDelete(
        _ key: EntityKey, shownIn: ShownIn?, requestID: String, at date: Date
    ) throws -> Int64 {
        guard let current = try CacheQueries.entity(db, key: key.canonical, bound: nil) else {
            throw OutboxError(description: "\(key.canonical) is not in the cache, so it cannot be deleted here.")
        }
        if let list = shownIn?.list { try removeRow(key, from: list) }
        if let parent = shownIn?.parent, let navigation = shownIn?.navigation {
            try removeChild(shownIn?.member ?? key, from: parent, navigation: navigation)
        }
        try setProperties(key, current.properties, pendingDelta: 1)
        try db.execute(
            sql: """
                INSERT INTO outbox (entityKey, entitySet, kind, changes, base, baseEtag, requestID, state, createdAt,
                    listKey, parentKey, navigation, member)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                key.canonical, current.entitySet, OutboxEntry.Kind.delete.rawValue, Self.encode([]),
                Self.encode(current.properties), current.etag, requestID, OutboxEntry.State.pending.rawValue,
                date.timeIntervalSince1970, shownIn?.list?.canonical, shownIn?.parent?.canonical, shownIn?.navigation,
                shownIn?.member?.canonical,
            ]
        )
        return db.lastInsertedRowID
    }

    /// Records the end of the link between `parent` and `key` through the many-to-many `navigation`: `key` leaves
    /// that relation at once, and the unlink is queued under `requestID`; the entity itself stays. Returns the
    /// entry's id.
    public func enqueueUnlink(
        _ key: EntityKey, parent: EntityKey, navigation: String, requestID: String, at date: Date
    ) throws -> Int64 {
        let shownIn = ShownIn(parent: parent, navigation: navigation)
        try removeChild(key, from: parent, navigation: navigation)
        try insertOutbox(
            key, entitySet: key.entitySet, kind: .unlink, changes: [], shownIn: shownIn, bind: nil,
            requestID: requestID, at: date)
        return db.lastInsertedRowID
    }

    /// Takes `key` out of a stored list: its row goes, the rows after it move up, the counts follow.
    func removeRow(_ key: EntityKey, from list: ListKey) throws {
        guard let id = try CacheQueries.listId(db, key: list),
            let position = try Int.fetchOne(
                db, sql: "SELECT min(position) FROM listRow WHERE listId = ? AND entityKey = ?",
                arguments: [id, key.canonical])
        else { return }
        try db.execute(sql: "DELETE FROM listRow WHERE listId = ? AND position = ?", arguments: [id, position])
        // Two statements whatever the list's length: the later rows go to negative positions (never in use, so
        // the primary key cannot collide whatever order SQLite visits them in), then back one place up.
        try db.execute(
            sql: "UPDATE listRow SET position = -(position - 1) WHERE listId = ? AND position > ?",
            arguments: [id, position])
        try db.execute(
            sql: "UPDATE listRow SET position = -position WHERE listId = ? AND position < 0", arguments: [id])
        try db.execute(
            sql: """
                UPDATE list SET fetchedCount = max(0, fetchedCount - 1),
                    totalCount = CASE WHEN totalCount IS NULL THEN NULL ELSE max(0, totalCount - 1) END,
                    nextPosition = CASE WHEN nextPosition > ? THEN nextPosition - 1 ELSE nextPosition END
                WHERE id = ?
                """,
            arguments: [position, id])
    }

    /// Takes `child` out of the relation `(parent, navigation)`, when that is known.
    func removeChild(_ child: EntityKey, from parent: EntityKey, navigation: String) throws {
        guard let (keys, at) = try CacheQueries.relationKeys(db, parent: parent.canonical, navigation: navigation)
        else { return }
        let remaining = keys.filter { $0 != child.canonical }
        guard remaining.count != keys.count else { return }
        try setRelation(parent: parent.canonical, navigation: navigation, keys: remaining, at: at)
    }

    /// Marks what a refused delete left as not fetched, so that screens fetch it again (with the entity back).
    func markStale(_ shownIn: ShownIn?) throws {
        if let list = shownIn?.list {
            try db.execute(sql: "UPDATE list SET fetchedAt = 0 WHERE listKey = ?", arguments: [list.canonical])
            try db.execute(
                sql: "UPDATE listRow SET fetchedAt = 0 WHERE listId = (SELECT id FROM list WHERE listKey = ?)",
                arguments: [list.canonical])
        }
        if let parent = shownIn?.parent, let navigation = shownIn?.navigation {
            try db.execute(
                sql: "DELETE FROM relation WHERE parentKey = ? AND navigation = ?",
                arguments: [parent.canonical, navigation])
        }
    }

    /// The writes to send now, claimed by `claimant` in this transaction: for each entity the oldest unsettled
    /// write, when it is queued and due (a failed or conflicting write holds its entity's later ones back, so one
    /// entity's writes go in the order made; a form's draft discarded goes in its active entity's turn, `orderKey`). A create that links or hangs from an entity not yet created waits
    /// for that entity's key.
    ///
    /// Another browser on the same cache file reads the same outbox: a write claimed by it is left alone until its
    /// attempt ends (the claim is released), its claim runs out (`lease`), or its process is gone. Write
    /// transactions are immediate, so two processes never both claim one write: each is sent by one of them.
    public func dueOutboxEntries(
        at date: Date, limit: Int, claimant: OutboxClaimant = .thisProcess, lease: TimeInterval = 120
    ) throws -> [OutboxEntry] {
        let now = date.timeIntervalSince1970
        // Claims of processes that ended (killed mid-send) go at once rather than at the end of their lease.
        let others = try String.fetchAll(
            db,
            sql:
                "SELECT DISTINCT claimedBy FROM outbox WHERE claimedBy IS NOT NULL AND claimedBy != ? AND claimedUntil > ?",
            arguments: [claimant.id, now])
        for other in others where !OutboxClaimant.isAlive(other) {
            try db.execute(sql: "UPDATE outbox SET claimedBy = NULL WHERE claimedBy = ?", arguments: [other])
        }
        let due = try CacheQueries.outbox(
            db,
            where: """
                id IN (SELECT MIN(id) FROM outbox GROUP BY coalesce(orderKey, entityKey)) AND state IN \(queuedStates)
                AND (nextAttemptAt IS NULL OR nextAttemptAt <= ?)
                AND (claimedBy IS NULL OR claimedBy = ? OR claimedUntil <= ?)
                AND NOT (kind = 'create' AND (instr(coalesce(bindKey, ''), ?) > 0 OR instr(coalesce(parentKey, ''), ?) > 0))
                ORDER BY id LIMIT ?
                """,
            arguments: [
                now, claimant.id, now, EntityKey.temporaryMarker, EntityKey.temporaryMarker, limit,
            ]
        )
        for entry in due {
            try db.execute(
                sql: "UPDATE outbox SET claimedBy = ?, claimedUntil = ? WHERE id = ?",
                arguments: [claimant.id, now + lease, entry.id])
        }
        return due
    }

    /// The queued creates of link entities that bind `key` (a create not yet made, so they wait for it), claimed
    /// like ``dueOutboxEntries(at:limit:claimant:lease:)``'s: sent in one changeset with that create.
    public func claimQueuedLinks(
        to key: EntityKey, at date: Date, claimant: OutboxClaimant = .thisProcess, lease: TimeInterval = 120
    ) throws -> [OutboxEntry] {
        let now = date.timeIntervalSince1970
        let links = try CacheQueries.outbox(
            db,
            where: """
                kind = 'create' AND bindKey = ? AND state = \(pendingState) AND instr(coalesce(parentKey, ''), ?) = 0
                AND (claimedBy IS NULL OR claimedBy = ? OR claimedUntil <= ?) ORDER BY id
                """,
            arguments: [key.canonical, EntityKey.temporaryMarker, claimant.id, now])
        for link in links {
            try db.execute(
                sql: "UPDATE outbox SET claimedBy = ?, claimedUntil = ? WHERE id = ?",
                arguments: [claimant.id, now + lease, link.id])
        }
        return links
    }

    /// Every queued write waiting for a retry is due now (the service is back).
    public func makeQueuedWritesDue() throws {
        try db.execute(sql: "UPDATE outbox SET nextAttemptAt = NULL WHERE state = \(pendingState)")
    }

    /// The write goes on the wire now (first sent at `date` unless it was sent before).
    public func markOutboxSending(_ id: Int64, at date: Date) throws {
        try db.execute(
            sql: """
                UPDATE outbox SET state = \(sendingState), attempts = attempts + 1,
                    firstSent = coalesce(firstSent, ?), nextAttemptAt = NULL WHERE id = ?
                """,
            arguments: [date.timeIntervalSince1970, id]
        )
    }

    /// The service applied the write: it leaves the outbox, the entity takes the service's new ETag (the later
    /// writes to it are made against that ETag), and the service's copy, when it sent one.
    public func settleOutbox(
        _ id: Int64, etag: String?, serverCopy: [ODataProperty]? = nil, at date: Date = Date()
    ) throws {
        guard let entry = try CacheQueries.outboxEntry(db, id: id) else { return }
        try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id])
        let key = entry.entityKey.canonical
        // A fetch sent before this moment read the entity before the write: it must not undo it here.
        try db.execute(
            sql: "UPDATE entity SET settledAt = ? WHERE key = ?", arguments: [date.timeIntervalSince1970, key])
        if entry.kind == .delete {
            // Gone on the service: gone here, with the writes that were still queued for it.
            try db.execute(sql: "DELETE FROM outbox WHERE entityKey = ?", arguments: [key])
            try db.execute(sql: "DELETE FROM entity WHERE key = ?", arguments: [key])
            if let member = entry.shownIn?.member {
                try db.execute(sql: "DELETE FROM entity WHERE key = ?", arguments: [member.canonical])
            }
            return
        }
        // A link gone, an action run: the entity is as it was here (it was never marked pending for either; an
        // action's effects are read from the service).
        if entry.kind == .unlink || entry.kind == .action { return }
        try db.execute(sql: "UPDATE entity SET pending = max(0, pending - 1) WHERE key = ?", arguments: [key])
        if let etag {
            try db.execute(sql: "UPDATE entity SET etag = ? WHERE key = ?", arguments: [etag, key])
            try db.execute(sql: "UPDATE outbox SET baseEtag = ? WHERE entityKey = ?", arguments: [etag, key])
        }
        if let serverCopy, let current = try CacheQueries.entity(db, key: key, bound: nil), current.pendingWrites == 0 {
            try setProperties(entry.entityKey, Self.merge(current.properties, with: serverCopy), pendingDelta: 0)
        }
    }

    /// A failure worth trying again later (no answer, 408, 429, 5xx): the write stays queued, due at `due`.
    public func retryOutboxLater(_ id: Int64, error: String, due: Date) throws {
        try db.execute(
            sql: """
                UPDATE outbox SET state = \(pendingState), lastError = ?, nextAttemptAt = ?, waitSetBy = claimedBy,
                    claimedBy = NULL WHERE id = ?
                """,
            arguments: [error, due.timeIntervalSince1970, id]
        )
    }

    /// The queued writes waiting for a retry that a process now ended set are due now: the wait was that process's
    /// view of the service, and a browser started since may ask the service nothing else that would end it (its
    /// lists fresh). Waits a live process set stay (another browser on the same cache).
    public func makeWaitsOfEndedProcessesDue() throws {
        let setters = try String?.fetchAll(
            db,
            sql: "SELECT DISTINCT waitSetBy FROM outbox WHERE state = \(pendingState) AND nextAttemptAt IS NOT NULL")
        for setter in setters {
            guard let setter else {
                try db.execute(
                    sql: "UPDATE outbox SET nextAttemptAt = NULL WHERE state = \(pendingState) AND waitSetBy IS NULL")
                continue
            }
            guard !OutboxClaimant.isAlive(setter) else { continue }
            try db.execute(
                sql: "UPDATE outbox SET nextAttemptAt = NULL WHERE state = \(pendingState) AND waitSetBy = ?",
                arguments: [setter])
        }
    }

    /// The service refused the write for good: the entity's changed fields go back to what they were, and the
    /// write waits in the outbox's failed list for the user.
    public func failOutbox(_ id: Int64, error: String) throws {
        guard let entry = try CacheQueries.outboxEntry(db, id: id), entry.isQueued || entry.state == .conflict else {
            return
        }
        try rollBack(entry)
        try db.execute(
            sql: """
                UPDATE outbox SET state = \(failedState), lastError = ?, nextAttemptAt = NULL, claimedBy = NULL WHERE id = ?
                """,
            arguments: [error, id]
        )
        // What links the refused new entity waits with it, out of sight.
        if entry.kind == .create {
            for dependent in try dependents(of: entry.entityKey) where dependent.isQueued {
                try failOutbox(
                    dependent.id, error: "Not sent: it links \(entry.entityKey.entitySet), which was refused.")
            }
        }
    }

    /// Creates that link `key` or hang from it (they wait for its key).
    func dependents(of key: EntityKey) throws -> [OutboxEntry] {
        try CacheQueries.outbox(
            db, where: "kind = 'create' AND (bindKey = ? OR parentKey = ?) ORDER BY id",
            arguments: [key.canonical, key.canonical])
    }

    /// The entity changed on the service since it was read: the write waits for the user, with the service's copy.
    public func conflictOutbox(_ id: Int64, theirs: [ODataProperty], theirsEtag: String?, error: String) throws {
        try db.execute(
            sql: """
                UPDATE outbox SET state = \(conflictState), theirs = ?, theirsEtag = ?, lastError = ?, nextAttemptAt = NULL,
                    claimedBy = NULL
                WHERE id = ?
                """,
            arguments: [Self.encode(theirs), theirsEtag, error, id]
        )
    }

    // MARK: - Helpers

    /// Puts the entry's changed fields back to their values before it, and unmarks it.
    func rollBack(_ entry: OutboxEntry) throws {
        if entry.kind == .create { return try unplace(entry) }
        if entry.kind == .unlink { return try markStale(entry.shownIn) }
        if entry.kind == .action { return }  // (nothing was changed here)
        if entry.kind == .delete {
            try db.execute(
                sql: "UPDATE entity SET pending = max(0, pending - 1) WHERE key = ?",
                arguments: [entry.entityKey.canonical])
            try markStale(entry.shownIn)
            return
        }
        guard let current = try CacheQueries.entity(db, key: entry.entityKey.canonical, bound: nil) else { return }
        let names = Set(entry.changes.map(\.name))
        // A changed field takes its value from before the write (the service's copy, for a conflict); one the entity
        // did not have leaves it again. The entity's later changes still waiting are made over that again: the row
        // keeps showing what will be sent.
        let below = Self.serviceValues(under: entry)
        let restored = current.properties.compactMap { property in
            names.contains(property.name) ? below.first { $0.name == property.name } : property
        }
        try setProperties(entry.entityKey, Self.overlaid(restored, with: laterUpdates(than: entry)), pendingDelta: -1)
    }

    /// What the service holds for the fields `entry` changes, as far as the cache knows: its copy for a conflict,
    /// else the values the change was made on.
    static func serviceValues(under entry: OutboxEntry) -> [ODataProperty] {
        entry.state == .conflict ? (entry.theirs ?? entry.base) : entry.base
    }

    /// The entity's updates made after `entry` and still to be sent, in the order made.
    func laterUpdates(than entry: OutboxEntry) throws -> [OutboxEntry] {
        try CacheQueries.outbox(
            db, where: "entityKey = ? AND id > ? AND kind = ? ORDER BY id",
            arguments: [entry.entityKey.canonical, entry.id, OutboxEntry.Kind.update.rawValue]
        ).filter(\.isQueued)
    }

    /// `properties` with the changes of `later` made over them in order: what the row shows while they wait.
    static func overlaid(_ properties: [ODataProperty], with later: [OutboxEntry]) -> [ODataProperty] {
        later.reduce(properties) { merge($0, with: $1.changes) }
    }

    /// The first of `later` to change each of `names` was made over a value the service does not have (a change
    /// dropped or replaced before it): it now stands on `values`, what the service has, so that its own rollback,
    /// and the outbox's "before", say that.
    func rebase(_ later: [OutboxEntry], onto values: [ODataProperty], for names: Set<String>) throws {
        var left = names
        for entry in later where !left.isDisjoint(with: entry.changes.map(\.name)) {
            let taken = left.intersection(entry.changes.map(\.name))
            left.subtract(taken)
            let rebased = entry.base.filter { !taken.contains($0.name) } + values.filter { taken.contains($0.name) }
            try db.execute(
                sql: "UPDATE outbox SET base = ? WHERE id = ?", arguments: [Self.encode(rebased), entry.id])
        }
    }

    func setProperties(_ key: EntityKey, _ properties: [ODataProperty], pendingDelta: Int) throws {
        try db.execute(
            sql: "UPDATE entity SET properties = ?, pending = max(0, pending + ?) WHERE key = ?",
            arguments: [Self.encode(properties), pendingDelta, key.canonical]
        )
    }

    /// Sets a relation's children as given, a change made here at `changedAt` (the fetch path's upsert keeps new
    /// entities' rows, this does not).
    func setRelation(parent: String, navigation: String, keys: [String], at: Date, changedAt: Date = Date()) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO relation (parentKey, navigation, childKeys, fetchedAt, changedHereAt)
                VALUES (?, ?, ?, ?, ?)
                """,
            arguments: [
                parent, navigation, String(decoding: ChildKeys.encode(keys), as: UTF8.self), at.timeIntervalSince1970,
                changedAt.timeIntervalSince1970,
            ])
    }

    static func encode(_ properties: [ODataProperty]) -> Data {
        var bytes: [UInt8] = []
        PropertyCodec.encode(properties, into: &bytes)
        return Data(bytes)
    }
}
