import Foundation
import GRDB
import ODataCore

/// Lists the service tracks changes to (issue 34): the delta link a read came with, and what a delta answer says.
extension CacheWriteSession {
    /// Keeps `link` as where `list` asks what changed since (nil forgets it: an expired link; empty: the service was
    /// asked and gave none, so the list's pages revalidate as others do).
    public func setDeltaLink(_ link: String?, for list: ListKey, at date: Date = Date()) throws {
        guard let link else {
            try db.execute(sql: "DELETE FROM listDelta WHERE listKey = ?", arguments: [list.canonical])
            return
        }
        try db.execute(
            sql: "INSERT OR REPLACE INTO listDelta (listKey, link, storedAt) VALUES (?, ?, ?)",
            arguments: [list.canonical, link, date.timeIntervalSince1970])
    }

    /// Whether `key` is a row of `list`.
    public func listHolds(_ key: EntityKey, in list: ListKey) throws -> Bool {
        guard let id = try CacheQueries.listId(db, key: list) else { return false }
        return try Bool.fetchOne(
            db, sql: "SELECT 1 FROM listRow WHERE listId = ? AND entityKey = ? LIMIT 1",
            arguments: [id, key.canonical]) == true
    }

    /// An entity a delta answer says left `list` (deleted on the service, or no longer matching): its row goes,
    /// the list's count with it, and the entity too unless a change made here waits to be sent.
    public func removeFromList(_ key: EntityKey, list: ListKey) throws {
        try removeRow(key, from: list)
        try db.execute(sql: "DELETE FROM entity WHERE key = ? AND pending = 0", arguments: [key.canonical])
    }
}

extension CacheDatabase {
    /// Where `list` asks what changed since it was read, when the service tracks it.
    public func deltaLink(for list: ListKey) throws -> String? {
        try read { db in
            try String.fetchOne(
                db, sql: "SELECT link FROM listDelta WHERE listKey = ? AND link != ''", arguments: [list.canonical])
        }
    }

    /// Whether the service was asked for `list`'s delta link since it was last forgotten (given one or not).
    public func askedForDeltaLink(of list: ListKey) throws -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM listDelta WHERE listKey = ?", arguments: [list.canonical]) == true
        }
    }
}
