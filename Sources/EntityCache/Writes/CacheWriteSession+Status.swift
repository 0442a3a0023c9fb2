import Foundation
import GRDB

extension CacheWriteSession {
    /// Entries kept in the request log; older ones are dropped as new ones arrive.
    static let requestLogCapacity = 2000

    /// Reads, changes and stores the one sync status row.
    public func updateSyncStatus(_ change: (inout SyncStatus) -> Void) throws {
        var status = try CacheQueries.syncStatus(db)
        let before = status
        change(&status)
        guard status != before else { return }
        try db.cachedStatement(
            sql: """
                UPDATE syncStatus SET isOnline = ?, inFlight = ?, queued = ?, lastError = ?, lastErrorAt = ?,
                    lastSuccessAt = ?, slowRequest = ? WHERE id = 1
                """
        ).execute(arguments: [
            status.isOnline, status.inFlight, status.queued, status.lastError,
            status.lastErrorAt?.timeIntervalSince1970, status.lastSuccessAt?.timeIntervalSince1970, status.slowRequest,
        ])
    }

    /// Records why a fetch of `subject` failed: an entity's canonical key (`Person(1)`) or a relation's
    /// (`Person(1)/PersonCar`). Lists keep theirs in the list itself (``setListError(_:message:)``).
    public func setFetchError(subject: String, message: String, at date: Date) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO fetchError (subject, message, at) VALUES (?, ?, ?)")
            .execute(arguments: [subject, message, date.timeIntervalSince1970])
    }

    /// Forgets the failures of `subjects` (they were fetched since).
    public func clearFetchErrors(subjects: [String]) throws {
        let statement = try db.cachedStatement(sql: "DELETE FROM fetchError WHERE subject = ?")
        for subject in subjects { try statement.execute(arguments: [subject]) }
    }

    /// Appends one request log entry (its `id` is assigned here) and returns the id.
    @discardableResult
    public func appendRequestLog(_ entry: RequestLogEntry) throws -> Int64 {
        try db.cachedStatement(
            sql: """
                INSERT INTO requestLog (url, status, bytes, duration, outcome, startedAt, attempts, error, method, headers)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            entry.url, entry.status, entry.bytes, entry.duration, entry.outcome.rawValue,
            entry.startedAt.timeIntervalSince1970, entry.attempts, entry.error, entry.method, entry.headers,
        ])
        let id = db.lastInsertedRowID
        if id % 256 == 0 {
            try db.execute(
                sql: "DELETE FROM requestLog WHERE id <= ?", arguments: [id - Int64(Self.requestLogCapacity)])
        }
        return id
    }
}
