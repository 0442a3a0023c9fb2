import Foundation
import GRDB

/// What `cardealer cache stats` prints.
public struct CacheStats: Sendable, Hashable {
    public var path: String?
    public var fileBytes: Int64
    public var entities: Int
    public var relations: Int
    public var lists: Int
    public var listRows: Int
    public var requestLogEntries: Int
    public var oldestFetch: Date?
    public var newestFetch: Date?
}

/// Consistency facts used by tests and `cache stats`: rows that point nowhere.
public struct CacheIntegrity: Sendable, Hashable {
    /// Child keys of known relations whose entity is missing.
    public var orphanRelationChildren: Int
    /// Relations whose stored child keys are not a JSON array of strings.
    public var malformedRelations: Int
    /// List rows whose entity is missing.
    public var orphanListRows: Int
    /// Entities appearing at more than one position of the same list.
    public var duplicateListEntries: Int

    public var isClean: Bool {
        orphanRelationChildren == 0 && malformedRelations == 0 && orphanListRows == 0 && duplicateListEntries == 0
    }
}

extension CacheDatabase {
    /// Counts for `cache stats`.
    public func stats() throws -> CacheStats {
        // The database and its write-ahead log: until a checkpoint, recent data lives in the log.
        let bytes = path.map { path in
            ["", "-wal"].reduce(Int64(0)) { total, suffix in
                let size = try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? NSNumber
                return total + (size?.int64Value ?? 0)
            }
        }
        return try read { db in
            let times = try Row.fetchOne(db, sql: "SELECT MIN(fetchedAt), MAX(fetchedAt) FROM entity")
            let oldest: Double? = times?[0]
            let newest: Double? = times?[1]
            return CacheStats(
                path: path, fileBytes: bytes ?? 0,
                entities: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entity") ?? 0,
                relations: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM relation") ?? 0,
                lists: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM list") ?? 0,
                listRows: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM listRow") ?? 0,
                requestLogEntries: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM requestLog") ?? 0,
                oldestFetch: oldest.map(Date.init(timeIntervalSince1970:)),
                newestFetch: newest.map(Date.init(timeIntervalSince1970:))
            )
        }
    }

    /// Full scans for dangling references; for tests and diagnostics, never per frame.
    public func integrity() throws -> CacheIntegrity {
        try read { db in
            CacheIntegrity(
                orphanRelationChildren: try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM relation r,
                            json_each(CASE WHEN json_valid(r.childKeys) THEN r.childKeys ELSE '[]' END) c
                        WHERE NOT EXISTS (SELECT 1 FROM entity e WHERE e.key = c.value)
                        """) ?? 0,
                malformedRelations: try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM relation r WHERE CASE
                            WHEN NOT json_valid(r.childKeys) THEN 1
                            WHEN json_type(r.childKeys) <> 'array' THEN 1
                            ELSE EXISTS (SELECT 1 FROM json_each(r.childKeys) c WHERE c.type <> 'text') END
                        """) ?? 0,
                orphanListRows: try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM listRow r WHERE NOT EXISTS (SELECT 1 FROM entity e WHERE e.key = r.entityKey)
                        """) ?? 0,
                duplicateListEntries: try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COALESCE(SUM(n - 1), 0) FROM
                            (SELECT COUNT(*) AS n FROM listRow GROUP BY listId, entityKey HAVING n > 1)
                        """) ?? 0
            )
        }
    }

    /// Deletes every cached row (not the file), e.g. `cache clear` on an open cache.
    public func clear() throws {
        try writer.write { db in
            for table in [
                "entity", "relation", "listRow", "list", "requestLog", "validator",
                "metadataDocument", "annotationDocument", "callResult",
            ] {
                try db.execute(sql: "DELETE FROM \(table)")
            }
        }
    }

    /// Removes a cache file and its WAL/SHM companions and its lock file; true if something was removed.
    @discardableResult
    public static func removeFiles(at path: String) throws -> Bool {
        var removed = false
        for suffix in ["", "-wal", "-shm", ".lock"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.removeItem(atPath: path + suffix)
            removed = true
        }
        return removed
    }
}
