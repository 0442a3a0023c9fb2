import Foundation
import GRDB
import ODataCore

/// The outbox states as its SQL names them (``OutboxEntry/State/sql``).
private let pendingState = OutboxEntry.State.pending.sql
private let failedState = OutboxEntry.State.failed.sql
private let conflictState = OutboxEntry.State.conflict.sql

/// What the user decided about a write in the outbox: keep mine or take theirs in a conflict, send it again (as it
/// was, or edited), or drop it.
extension CacheWriter {
    /// A conflict resolved by keeping mine: sent again against the service's current ETag.
    public func keepMine(_ id: Int64) throws {
        try db.execute(
            sql: """
                UPDATE outbox SET state = \(pendingState), baseEtag = theirsEtag, theirs = NULL, theirsEtag = NULL,
                    lastError = NULL, nextAttemptAt = NULL WHERE id = ? AND state = \(conflictState)
                """,
            arguments: [id]
        )
    }

    /// A conflict resolved by taking theirs: the entity takes the service's copy and the write is dropped.
    public func takeTheirs(_ id: Int64) throws {
        guard let entry = try CacheQueries.outboxEntry(db, id: id), entry.state == .conflict, let theirs = entry.theirs
        else { return }
        try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id])
        // (the entity's later changes still waiting show over their copy, and stand on it)
        let later = try laterUpdates(than: entry)
        try setProperties(entry.entityKey, Self.overlaid(theirs, with: later), pendingDelta: -1)
        try rebase(later, onto: theirs, for: Set(entry.changes.map(\.name)))
        try db.execute(
            sql: "UPDATE entity SET etag = ? WHERE key = ?", arguments: [entry.theirsEtag, entry.entityKey.canonical])
        // A delete not made after all: the entity comes back where it was shown.
        if entry.kind == .delete { try markStale(entry.shownIn) }
    }

    /// A failed or conflicting update, edited by the user: `changes` replace the entry's, the entity shows them
    /// (on the service's copy, for a conflict), and it is sent again, against the service's ETag for a conflict.
    public func resendOutbox(_ id: Int64, changes: [ODataProperty]) throws {
        if let entry = try CacheQueries.outboxEntry(db, id: id), entry.kind == .create, entry.state == .failed {
            return try requeueCreate(entry, changes: changes)
        }
        guard let entry = try CacheQueries.outboxEntry(db, id: id), entry.kind == .update,
            entry.state == .failed || entry.state == .conflict,
            let current = try CacheQueries.entity(db, key: entry.entityKey.canonical, bound: nil)
        else { return }
        let below = entry.state == .conflict ? (entry.theirs ?? current.properties) : current.properties
        // The entity's later changes still waiting show over the new ones, and now stand on them (and on the
        // service's values of the fields this change no longer makes).
        let later = try laterUpdates(than: entry)
        try setProperties(
            entry.entityKey, Self.overlaid(Self.merge(below, with: changes), with: later),
            pendingDelta: entry.state == .failed ? 1 : 0)
        try rebase(
            later, onto: Self.merge(Self.serviceValues(under: entry), with: changes),
            for: Set(entry.changes.map(\.name)).union(changes.map(\.name)))
        try db.execute(
            sql: """
                UPDATE outbox SET state = \(pendingState), changes = ?, attempts = 0, lastError = NULL, nextAttemptAt = NULL,
                    baseEtag = CASE WHEN state = \(conflictState) THEN theirsEtag ELSE baseEtag END,
                    theirs = NULL, theirsEtag = NULL
                WHERE id = ?
                """,
            arguments: [Self.encode(changes), id])
    }

    /// A failed write sent again as it was (after the user fixed what the service refused elsewhere).
    public func retryFailedOutbox(_ id: Int64) throws {
        if let entry = try CacheQueries.outboxEntry(db, id: id), entry.kind == .create, entry.state == .failed {
            return try requeueCreate(entry, changes: entry.changes)
        }
        guard let entry = try CacheQueries.outboxEntry(db, id: id), entry.state == .failed else { return }
        // (an action changed nothing here; one on a list or on the service has no entity at all)
        let current = try CacheQueries.entity(db, key: entry.entityKey.canonical, bound: nil)
        // (nor is a draft a dropped create left cached: its delete goes again all the same)
        guard current != nil || entry.kind == .action || entry.kind == .delete else { return }
        if let current, entry.kind != .unlink && entry.kind != .action {
            // (the entity's later changes still waiting keep showing over it)
            let later = try laterUpdates(than: entry)
            try setProperties(
                entry.entityKey, Self.overlaid(Self.merge(current.properties, with: entry.changes), with: later),
                pendingDelta: 1)
        }
        if entry.kind == .delete || entry.kind == .unlink, let shownIn = entry.shownIn {
            if let list = shownIn.list { try removeRow(entry.entityKey, from: list) }
            if let parent = shownIn.parent, let navigation = shownIn.navigation {
                try removeChild(shownIn.member ?? entry.entityKey, from: parent, navigation: navigation)
            }
        }
        try db.execute(
            sql: "UPDATE outbox SET state = \(pendingState), attempts = 0, lastError = NULL WHERE id = ?",
            arguments: [id])
    }

    /// Drops a write the service has not settled: its changes leave the cached entity. A dropped create takes
    /// the later writes to its entity, and the creates that link it, with it.
    public func discardOutbox(_ id: Int64) throws {
        // (one on the wire stays: its answer may make it on the service, which a rollback here would hide)
        guard let entry = try CacheQueries.outboxEntry(db, id: id), entry.state != .sending else { return }
        if entry.state != .failed { try rollBack(entry) }
        try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id])
        // The entity's later changes were made over this one: they now stand on what the service has, when that is
        // known (refused, in conflict, or never sent; one sent without an answer may have been made there).
        if entry.kind == .update, entry.state != .pending || (entry.attempts == 0 && !entry.outcomeUnknown) {
            try rebase(
                laterUpdates(than: entry), onto: Self.serviceValues(under: entry), for: Set(entry.changes.map(\.name)))
        }
        if entry.kind == .create {
            try db.execute(sql: "DELETE FROM outbox WHERE entityKey = ?", arguments: [entry.entityKey.canonical])
            for dependent in try dependents(of: entry.entityKey) { try discardOutbox(dependent.id) }
        }
    }

    /// A refused create sent again (as it was, or with `changes`): it shows again where it was added, and so do
    /// the creates that link it.
    func requeueCreate(_ entry: OutboxEntry, changes: [ODataProperty]) throws {
        try place(entry.entityKey, entitySet: entry.entitySet, properties: changes, shownIn: entry.shownIn, at: Date())
        if let binding = entry.binding {
            try setRelation(
                parent: entry.entityKey.canonical, navigation: binding.navigation, keys: [binding.target.canonical],
                at: Date(timeIntervalSince1970: 0))
        }
        try db.execute(
            sql: """
                UPDATE outbox SET state = \(pendingState), changes = ?, attempts = 0, lastError = NULL, nextAttemptAt = NULL
                WHERE id = ?
                """,
            arguments: [Self.encode(changes), entry.id])
        for dependent in try dependents(of: entry.entityKey) where dependent.state == .failed {
            try requeueCreate(dependent, changes: dependent.changes)
        }
        // A link entity refused with the new entity it binds (one changeset): that one goes again too.
        if let target = entry.binding?.target, target.isTemporary,
            let made = try CacheQueries.outbox(
                db, where: "kind = 'create' AND entityKey = ? AND state = \(failedState) ORDER BY id",
                arguments: [target.canonical]
            ).first
        {
            try requeueCreate(made, changes: made.changes)
        }
    }
}
