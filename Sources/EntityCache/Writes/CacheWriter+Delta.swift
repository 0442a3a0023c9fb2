import Foundation
import GRDB
import ODataCore

/// Lists the service tracks changes to (issue 34): the delta link a read came with, and what a delta answer says.
extension CacheWriter {
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

    /// Which of `keys` are rows of `list` (their canonical keys): one pass over the list's rows for every 500 keys
    /// asked, not one per key (a delta's changes against a list of thousands).
    public func listHolding(_ keys: [EntityKey], in list: ListKey) throws -> Set<String> {
        guard !keys.isEmpty, let id = try CacheQueries.listId(db, key: list) else { return [] }
        var held: Set<String> = []
        for chunk in Self.chunks(of: keys.map(\.canonical)) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            held.formUnion(
                try String.fetchAll(
                    db, sql: "SELECT DISTINCT entityKey FROM listRow WHERE listId = ? AND entityKey IN (\(marks))",
                    arguments: StatementArguments([id]) + StatementArguments(chunk)))
        }
        return held
    }

    /// Entities a delta answer says left `list` (deleted on the service, or no longer matching): their rows go,
    /// the list's count with them, and each entity too unless a change made here waits to be sent. The rows after
    /// them move up in one pass however many left (each row is renumbered once, not once per row removed above it).
    public func removeFromList(_ keys: [EntityKey], list: ListKey) throws {
        guard !keys.isEmpty else { return }
        if let id = try CacheQueries.listId(db, key: list) {
            var positions: [Int] = []
            var found: Set<String> = []
            for chunk in Self.chunks(of: keys.map(\.canonical)) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let arguments = StatementArguments([id]) + StatementArguments(chunk)
                for row in try Row.fetchAll(
                    db, sql: "SELECT position, entityKey FROM listRow WHERE listId = ? AND entityKey IN (\(marks))",
                    arguments: arguments)
                {
                    positions.append(row[0])
                    found.insert(row[1])
                }
                try db.execute(
                    sql: "DELETE FROM listRow WHERE listId = ? AND entityKey IN (\(marks))", arguments: arguments)
            }
            try closeGaps(at: positions.sorted(), inList: id, entities: found.count)
        }
        let forget = try db.cachedStatement(sql: "DELETE FROM entity WHERE key = ? AND pending = 0")
        for key in keys { try forget.execute(arguments: [key.canonical]) }
    }

    /// Moves the rows of list `id` up over the emptied `gaps` (ascending): a row after the i-th gap moves up i
    /// places. Rows go to negative positions first (never in use, so the primary key cannot collide whatever
    /// order SQLite visits them in), then back; the list's counts follow (the service's count by the `entities`
    /// that left: a key listed twice is one entity).
    private func closeGaps(at gaps: [Int], inList id: Int64, entities: Int) throws {
        guard !gaps.isEmpty else { return }
        let shift = try db.cachedStatement(
            sql: "UPDATE listRow SET position = -(position - ?) WHERE listId = ? AND position > ? AND position < ?")
        for (index, gap) in gaps.enumerated() {
            let end = index + 1 < gaps.count ? gaps[index + 1] : Int.max
            try shift.execute(arguments: [index + 1, id, gap, end])
        }
        try db.execute(
            sql: "UPDATE listRow SET position = -position WHERE listId = ? AND position < 0", arguments: [id])
        let next = try Int.fetchOne(db, sql: "SELECT nextPosition FROM list WHERE id = ?", arguments: [id])
        try db.execute(
            sql: """
                UPDATE list SET fetchedCount = max(0, fetchedCount - ?),
                    totalCount = CASE WHEN totalCount IS NULL THEN NULL ELSE max(0, totalCount - ?) END,
                    nextPosition = ?
                WHERE id = ?
                """,
            arguments: [gaps.count, entities, next.map { next in next - gaps.filter { $0 < next }.count }, id])
    }

    /// `keys` in runs SQLite takes as one statement's arguments.
    private static func chunks(of keys: [String]) -> [ArraySlice<String>] {
        stride(from: 0, to: keys.count, by: 500).map { keys[$0..<min($0 + 500, keys.count)] }
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
