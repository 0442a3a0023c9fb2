import Foundation
import GRDB
import ODataCore

extension CacheWriteSession {
    /// Writes one page of a stored list: `entityKeys` at positions `offset…`.
    ///
    /// * `nextLink` is the page's `__next`; it continues at `offset + entityKeys.count`.
    /// * `isLastPage` (no `__next`, and fewer rows than asked or none asked) ends the list:
    ///   positions after the page are removed and the list is complete.
    /// * `totalCount` (`__count`) also trims positions at or past it.
    /// Clears the list's last error.
    public func writeListPage(
        _ key: ListKey, offset: Int, entityKeys: [String], totalCount: Int?, nextLink: String?, isLastPage: Bool,
        at date: Date
    ) throws {
        let id = try ensureList(key)
        let end = offset + entityKeys.count
        let seconds = date.timeIntervalSince1970
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
                bind.text(3, entityKey)
                bind.double(4, seconds)
            }
        }
        var removed = 0
        let trimFrom = isLastPage ? end : totalCount.map { max($0, end) }
        if let trimFrom {
            try db.cachedStatement(sql: "DELETE FROM listRow WHERE listId = ? AND position >= ?")
                .execute(arguments: [id, trimFrom])
            removed = db.changesCount
        }
        let current = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT fetchedCount, nextPosition, nextLink FROM list WHERE id = ?"),
            arguments: [id]
        )
        let fetchedCount = (current?[0] as Int? ?? 0) - countInRange + entityKeys.count - removed
        let isComplete = (isLastPage && fetchedCount == end) || (totalCount.map { fetchedCount >= $0 } ?? false)
        let total = isLastPage ? end : totalCount
        // The next link belongs to the contiguous chain: a page replaces it when it starts the list
        // or continues the chain; a page fetched elsewhere (by `$skip`) leaves it alone.
        let chainPosition: Int? = current?[1]
        let continuesChain = offset == 0 || chainPosition == nil || chainPosition == offset
        let newLink: String? = continuesChain ? nextLink : current?[2]
        let newPosition: Int? = continuesChain ? (nextLink == nil ? nil : end) : chainPosition
        try db.cachedStatement(
            sql: """
                UPDATE list SET fetchedCount = ?, totalCount = coalesce(?, totalCount), isComplete = ?,
                    nextLink = ?, nextPosition = ?, fetchedAt = ?, lastError = NULL
                WHERE id = ?
                """
        ).execute(arguments: [fetchedCount, total, isComplete, newLink, newPosition, seconds, id])
    }

    /// Records a failed fetch of a list (shown by the screen), creating the list if needed.
    public func setListError(_ key: ListKey, message: String?) throws {
        let id = try ensureList(key)
        try db.cachedStatement(sql: "UPDATE list SET lastError = ? WHERE id = ?").execute(arguments: [message, id])
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
