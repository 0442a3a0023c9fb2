import Foundation
import GRDB
import ODataCore

extension CacheWriter {
    /// Writes one page of a stored list: `entityKeys` at positions `offset…`.
    ///
    /// * `nextLink` is the page's `__next`; it continues at `offset + entityKeys.count`.
    /// * `isLastPage` (no `__next`, and fewer rows than asked or none asked) ends the list after
    ///   the page's rows. An empty last page past the start only says that no row is at `offset` or
    ///   after: the list may end earlier (a window taller than a short list asks past its end).
    /// * `totalCount` (`__count`) is the list's length; positions at or past it are removed.
    /// The list is complete when its length is known and every position before it is stored; a
    /// complete list never holds a position at or past its length. Clears the list's last error.
    /// * New entities made here stay in the list, first, when the page would take them out: those not yet made,
    ///   and those made after `requestedAt` (when the page's request went out; it was read before them).
    /// * A list marked not fresh after `requestedAt` (``markListsStale(ofSet:at:)``) stays not fresh.
    public func writeListPage(
        _ key: ListKey, offset: Int, entityKeys: [EntityKey], totalCount: Int?, nextLink: String?, isLastPage: Bool,
        at date: Date, requestedAt: Date? = nil
    ) throws {
        let id = try ensureList(key)
        let end = offset + entityKeys.count
        let madeHere = try rowsMadeHere(listId: id, range: offset..<Int.max, requestedAt: requestedAt)

        // A list marked not fresh after this page's request went out (an action on it ran meanwhile) stays so.
        let marked = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT fetchedAt, changedHereAt FROM list WHERE id = ?"), arguments: [id])
        let markedSince: Double? = marked.flatMap { $0[0] as Double? == 0 ? $0[1] as Double? : nil }
        let stale = requestedAt.map { at in markedSince.map { $0 > at.timeIntervalSince1970 } ?? false } ?? false
        let seconds = stale ? 0 : date.timeIntervalSince1970
        let countInRange =
            try Int.fetchOne(
                db.cachedStatement(
                    sql: "SELECT COUNT(*) FROM listRow WHERE listId = ? AND position >= ? AND position < ?"),
                arguments: [id, offset, end]
            ) ?? 0
        for (index, entityKey) in entityKeys.enumerated() {
            try statements.run(.upsertListRow) { bind in
                bind.int64(1, id)
                bind.int(2, offset + index)
                bind.text(3, entityKey.canonical)
                bind.double(4, seconds)
            }
        }
        // Where the list ends, if this page says: after a non-empty last page; at `__count`
        // (past the page's rows if a server counts fewer than it sends); at 0 for an empty first page.
        let knownEnd: Int? =
            if isLastPage && !entityKeys.isEmpty { end } else if let totalCount {
                entityKeys.isEmpty ? totalCount : max(totalCount, end)
            } else if isLastPage && offset == 0 { 0 } else { nil }
        var removed = 0
        if let trimFrom = knownEnd ?? (isLastPage ? end : nil) {
            try db.cachedStatement(sql: "DELETE FROM listRow WHERE listId = ? AND position >= ?")
                .execute(arguments: [id, trimFrom])
            removed = db.changesCount
        }
        let current = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT fetchedCount, nextPosition, nextLink, totalCount FROM list WHERE id = ?"),
            arguments: [id]
        )
        let fetchedCount = (current?[0] as Int? ?? 0) - countInRange + entityKeys.count - removed
        let previous: Int? = current?[3]
        let total: Int?
        if let knownEnd {
            total = knownEnd
        } else if isLastPage {
            // An empty last page at `offset`: the list ends exactly there if every row before it is
            // stored; otherwise somewhere before it, so a length past it is stale.
            total = fetchedCount == offset ? offset : previous.flatMap { $0 <= offset ? $0 : nil }
        } else {
            // Nothing said about the end: a length the page's rows run past is stale.
            total = previous.flatMap { $0 >= end ? $0 : nil }
        }
        // Complete when every position before a proven end is stored (none is stored past it).
        let isComplete = knownEnd.map { fetchedCount == $0 } ?? (isLastPage && fetchedCount == offset)
        // The next link belongs to the contiguous chain: a page replaces it when it starts the list
        // or continues the chain; a page fetched elsewhere (by `$skip`) leaves it alone.
        let chainPosition: Int? = current?[1]
        let continuesChain = offset == 0 || chainPosition == nil || chainPosition == offset
        let newLink: String? = continuesChain ? nextLink : current?[2]
        let newPosition: Int? = continuesChain ? (nextLink == nil ? nil : end) : chainPosition
        try db.cachedStatement(
            sql: """
                UPDATE list SET fetchedCount = ?, totalCount = ?, isComplete = ?,
                    nextLink = ?, nextPosition = ?, fetchedAt = ?, lastError = NULL
                WHERE id = ?
                """
        ).execute(arguments: [fetchedCount, total, isComplete, newLink, newPosition, seconds, id])
        for row in madeHere.reversed() {
            let listed = try Int.fetchOne(
                db, sql: "SELECT 1 FROM listRow WHERE listId = ? AND entityKey = ?", arguments: [id, row])
            if listed == nil, let entityKey = EntityKey(stored: row) {
                try insertFirstRow(entityKey, in: key, at: date)
            }
        }
    }

    /// The length of a list whose pages came without it (the answer of its `/$count` segment): kept while no page
    /// has said one since, never shorter than the rows it holds, and not for a list already known whole.
    public func setListLength(_ key: ListKey, _ length: Int) throws {
        guard let id = try CacheQueries.listId(db, key: key) else { return }
        try db.execute(
            sql: """
                UPDATE list SET totalCount = max(?, fetchedCount)
                WHERE id = ? AND totalCount IS NULL AND NOT isComplete
                """,
            arguments: [length, id])
    }

    /// Whether every one of `entityKeys` is already in the list within the `window` positions before `offset`
    /// (a next page that leads back brings nothing new). The window bounds the scan on long lists.
    public func listHoldsAll(
        _ key: ListKey, entityKeys: [EntityKey], before offset: Int, window: Int = 5000
    ) throws -> Bool {
        guard let id = try CacheQueries.listId(db, key: key) else { return false }
        let wanted = Set(entityKeys.map(\.canonical))
        let placeholders = Array(repeating: "?", count: wanted.count).joined(separator: ",")
        var arguments: [any DatabaseValueConvertible] = [id, max(0, offset - window), offset]
        arguments += wanted.map { $0 as any DatabaseValueConvertible }
        let found =
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(DISTINCT entityKey) FROM listRow
                    WHERE listId = ? AND position >= ? AND position < ? AND entityKey IN (\(placeholders))
                    """,
                arguments: StatementArguments(arguments)
            ) ?? 0
        return found == wanted.count
    }

    /// Records a failed fetch of a list (shown by the screen), creating the list if needed, and when (`date`).
    public func setListError(_ key: ListKey, message: String?, at date: Date = Date()) throws {
        let id = try ensureList(key)
        try db.cachedStatement(sql: "UPDATE list SET lastError = ?, lastErrorAt = ? WHERE id = ?").execute(
            arguments: [message, message == nil ? nil : date.timeIntervalSince1970, id])
    }

    /// Confirms positions `range` of a list unchanged (a 304).
    public func touchList(_ key: ListKey, range: Range<Int>, at date: Date) throws {
        guard let id = try CacheQueries.listId(db, key: key) else { return }
        let seconds = date.timeIntervalSince1970
        try db.cachedStatement(
            sql: "UPDATE listRow SET fetchedAt = ? WHERE listId = ? AND position >= ? AND position < ?"
        )
        .execute(arguments: [seconds, id, range.lowerBound, range.upperBound])
        try db.cachedStatement(sql: "UPDATE list SET fetchedAt = ?, lastError = NULL WHERE id = ?")
            .execute(arguments: [seconds, id])
    }

    func ensureList(_ key: ListKey) throws -> Int64 {
        if let id = try CacheQueries.listId(db, key: key) { return id }
        try db.cachedStatement(sql: "INSERT INTO list (listKey) VALUES (?)").execute(arguments: [key.canonical])
        return db.lastInsertedRowID
    }
}
