import Foundation
import GRDB

extension CacheWriter {
    /// Entries kept in the request log; older ones are dropped as new ones arrive.
    static let requestLogCapacity = 2000

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
