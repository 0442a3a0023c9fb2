import Foundation
import GRDB
import ODataCore

extension CacheWriter {
    /// Files what the call `key` (a list key: the call's path and parameters) answered: an entity already written, or
    /// a value as plain JSON.
    public func writeCallResult(_ key: String, entityKey: EntityKey?, value: String?, at date: Date) throws {
        try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO callResult (callKey, entityKey, value, fetchedAt) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [key, entityKey?.canonical, value, date.timeIntervalSince1970])
    }

    /// Confirms a call's answer unchanged (a 304).
    public func touchCallResult(_ key: String, at date: Date) throws {
        try db.cachedStatement(sql: "UPDATE callResult SET fetchedAt = ? WHERE callKey = ?")
            .execute(arguments: [date.timeIntervalSince1970, key])
    }
}

extension CacheQueries {
    static func callResult(_ db: Database, key: String) throws -> CallResult? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT entityKey, value, fetchedAt FROM callResult WHERE callKey = ?"),
                arguments: [key])
        else { return nil }
        let entity: String? = row[0]
        return CallResult(
            entityKey: entity.flatMap { EntityKey(stored: $0) }, value: row[1],
            fetchedAt: Date(timeIntervalSince1970: row[2]))
    }
}

extension CacheDatabase {
    /// What the call `key` last answered, if it was read.
    public func callResult(_ key: String) throws -> CallResult? {
        try read { try CacheQueries.callResult($0, key: key) }
    }

    /// Observes ``callResult(_:)``.
    @MainActor
    public func observeCallResult(
        _ key: String, onError: @escaping @MainActor (Error) -> Void = { _ in },
        onChange: @escaping @MainActor (CallResult?) -> Void
    ) -> CacheObservation {
        observe({ try CacheQueries.callResult($0, key: key) }, onError: onError, onChange: onChange)
    }
}
