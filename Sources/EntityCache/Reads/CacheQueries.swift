import Foundation
import GRDB
import ODataCore

/// The SQL behind the read API; each function is one consistent read of few rows.
///
/// Entities read for screens are decoded under ``PropertyCodec/DisplayBound/screen``: a server
/// may send a 50 MB string, and a screen that decodes, compares and measures all of it on every
/// frame freezes. Only ``entity(_:key:bound:)`` with a nil bound (the write merge, the full-value
/// view) decodes everything.
///
/// Every query is a primary-key lookup or a primary-key range scan: a window of a
/// 1,000,000-row list reads 50 `listRow` entries by `(listId, position)` and 50
/// entities by key, whatever the position.
enum CacheQueries {
    static let entityColumns = "key, entitySet, type, properties, etag, fetchedAt, pending, complete"

    static func entity(
        _ db: Database, key: String, bound: PropertyCodec.DisplayBound? = .screen
    ) throws -> CachedEntity? {
        let statement = try db.cachedStatement(sql: "SELECT \(entityColumns) FROM entity WHERE key = ?")
        guard let row = try Row.fetchOne(statement, arguments: [key]) else { return nil }
        return try entity(from: row, offset: 0, bound: bound)
    }

    /// Decodes an entity from eight consecutive columns (``entityColumns``) starting at `offset`; under a `bound`,
    /// long values are cut (and named in ``CachedEntity/cutProperties``). Nil for a stored key that is not
    /// canonical (a damaged row), which reads as not cached.
    static func entity(from row: Row, offset: Int, bound: PropertyCodec.DisplayBound? = .screen) throws -> CachedEntity?
    {
        guard let key = EntityKey(stored: row[offset] as String) else { return nil }
        // The blob is read in place: a copy of a huge value costs as much as decoding it.
        let (properties, cut) = try row.withUnsafeData(atIndex: offset + 3) { data -> ([ODataProperty], [String]) in
            guard let data else { return ([], []) }
            guard let bound else { return (PropertyCodec.decode(data) ?? [], []) }
            return data.withUnsafeBytes { PropertyCodec.decode($0, bound: bound) } ?? ([], [])
        }
        return CachedEntity(
            key: key, entitySet: row[offset + 1], type: row[offset + 2],
            properties: properties, etag: row[offset + 4],
            fetchedAt: Date(timeIntervalSince1970: row[offset + 5]), cutProperties: cut, pendingWrites: row[offset + 6],
            isComplete: row[offset + 7]
        )
    }

    static func listId(_ db: Database, key: ListKey) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM list WHERE listKey = ?"), arguments: [key.canonical])
    }

    static func listState(_ db: Database, key: ListKey) throws -> (id: Int64, state: ListState)? {
        let sql = """
            SELECT id, totalCount, fetchedCount, isComplete, nextLink, nextPosition, fetchedAt, lastError, lastErrorAt
            FROM list WHERE listKey = ?
            """
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [key.canonical]) else { return nil }
        let nextLink: String? = row[4]
        let fetchedAt: Double? = row[6]
        let failedAt: Double? = row[8]
        var state = ListState(
            totalCount: row[1], fetchedCount: row[2], isComplete: row[3], hasNextLink: nextLink != nil,
            nextPosition: row[5], fetchedAt: fetchedAt.map(Date.init(timeIntervalSince1970:)), lastError: row[7]
        )
        state.lastErrorAt = failedAt.map(Date.init(timeIntervalSince1970:))
        return (row[0], state)
    }

    static func listWindow(_ db: Database, key: ListKey, range: Range<Int>) throws -> ListWindow {
        guard let (id, state) = try listState(db, key: key) else {
            return ListWindow(range: range, rows: [], state: nil)
        }
        let sql = """
            SELECT r.position, e.key, e.entitySet, e.type, e.properties, e.etag, e.fetchedAt, e.pending, e.complete
            FROM listRow r LEFT JOIN entity e ON e.key = r.entityKey
            WHERE r.listId = ? AND r.position >= ? AND r.position < ? ORDER BY r.position
            """
        var found: [Int: CachedEntity] = [:]
        let cursor = try Row.fetchCursor(
            db.cachedStatement(sql: sql), arguments: [id, range.lowerBound, range.upperBound])
        while let row = try cursor.next() {
            guard !row.hasNull(atIndex: 1) else { continue }
            found[row[0]] = try entity(from: row, offset: 1)
        }
        // Positions past the end are not rows; unknown ones are gaps.
        let knownEnd = max(state.displayCount, (found.keys.max() ?? -1) + 1)
        let openEnded = !state.isComplete && state.totalCount == nil && state.hasNextLink
        let end = openEnded ? max(knownEnd, range.upperBound) : knownEnd
        let clipped = range.clamped(to: 0..<max(end, range.lowerBound))
        let rows = clipped.map { ListWindow.Row(position: $0, entity: found[$0]) }
        return ListWindow(range: range, rows: rows, state: state)
    }

    /// Child keys of a known relation, in order; nil when unknown (or its stored keys are damaged).
    static func relationKeys(
        _ db: Database, parent: String, navigation: String
    ) throws -> (keys: [String], fetchedAt: Date)? {
        let sql = "SELECT childKeys, fetchedAt FROM relation WHERE parentKey = ? AND navigation = ?"
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [parent, navigation]),
            let keys = ChildKeys.decode(row[0])
        else { return nil }
        return (keys, Date(timeIntervalSince1970: row[1]))
    }

    /// When a relation was fetched, without decoding its keys; nil while unknown. A damaged row (not a JSON array)
    /// reads as unknown, as ``relationKeys(_:parent:navigation:)`` has it.
    static func relationFetchedAt(_ db: Database, parent: String, navigation: String) throws -> Double? {
        let sql = """
            SELECT fetchedAt FROM relation WHERE parentKey = ? AND navigation = ?
            AND json_valid(childKeys) AND json_type(childKeys) = 'array'
            """
        return try Double.fetchOne(db.cachedStatement(sql: sql), arguments: [parent, navigation])
    }

    static func related(_ db: Database, parent: String, navigation: String) throws -> Related<CachedEntity> {
        guard let (keys, at) = try relationKeys(db, parent: parent, navigation: navigation) else { return .unknown }
        return .known(try keys.compactMap { try entity(db, key: $0) }, fetchedAt: at)
    }

    /// Follows `path[0]` as an ordered relation, then each later segment as a to-one hop.
    ///
    /// Cached primary-key lookups per row. One statement joining `json_each` of the keys to each hop's
    /// relation and entity was tried and measured slower (cache-bench, two cars per person: p50 0.063 ms
    /// against 0.052 ms).
    static func related(_ db: Database, parent: String, path: [String]) throws -> Related<HopRow> {
        guard let first = path.first else { return .unknown }
        guard let (keys, at) = try relationKeys(db, parent: parent, navigation: first) else { return .unknown }
        var rows: [HopRow] = []
        rows.reserveCapacity(keys.count)
        for key in keys {
            guard let link = try entity(db, key: key) else { continue }
            var target: CachedEntity? = link
            for navigation in path.dropFirst() {
                guard let current = target,
                    let next = try relationKeys(db, parent: current.key.canonical, navigation: navigation)?.keys.first
                else {
                    target = nil
                    break
                }
                target = try entity(db, key: next)
            }
            rows.append(HopRow(link: link, target: path.count == 1 ? link : target))
        }
        return .known(rows, fetchedAt: at)
    }

    static func fetchError(_ db: Database, subject: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT message FROM fetchError WHERE subject = ?", arguments: [subject])
    }

    static func requestLog(_ db: Database, limit: Int) throws -> [RequestLogEntry] {
        let sql = """
            SELECT id, url, status, bytes, duration, outcome, startedAt, attempts, error, method, headers
            FROM requestLog ORDER BY id DESC LIMIT ?
            """
        return try Row.fetchAll(db, sql: sql, arguments: [limit]).reversed().map { row in
            RequestLogEntry(
                id: row[0], url: row[1], status: row[2], bytes: row[3], duration: row[4],
                outcome: RequestLogEntry.Outcome(rawValue: row[5]) ?? .failed,
                startedAt: Date(timeIntervalSince1970: row[6]), attempts: row[7], error: row[8], method: row[9],
                headers: row[10]
            )
        }
    }
}
