import Foundation
import GRDB
import ODataCore

/// The read API for screens (and Sync's freshness checks): one-shot reads.
///
/// Each has an observing twin in `CacheDatabase+Observation.swift`.
extension CacheDatabase {
    /// The rows at `range` of the stored list `key` (gaps where not fetched yet) and its state.
    public func listWindow(_ key: ListKey, range: Range<Int>) throws -> ListWindow {
        try read { try CacheQueries.listWindow($0, key: key, range: range) }
    }

    /// The state of a stored list, nil if it was never fetched.
    public func listState(_ key: ListKey) throws -> ListState? {
        try read { try CacheQueries.listState($0, key: key)?.state }
    }

    /// One entity by key, for display: values longer than a screen can show are cut
    /// (see ``CachedEntity/cutProperties``).
    public func entity(_ key: EntityKey) throws -> CachedEntity? {
        try read { try CacheQueries.entity($0, key: key.canonical) }
    }

    /// One entity with every value whole, however long: for a view of one full value.
    /// Costs as much as the entity is large; screens that draw rows use ``entity(_:)``.
    public func fullEntity(_ key: EntityKey) throws -> CachedEntity? {
        try read { try CacheQueries.entity($0, key: key.canonical, bound: nil) }
    }

    /// The ordered entities behind `navigation` of `parent`: unknown, empty or the list.
    public func related(_ parent: EntityKey, navigation: String) throws -> Related<CachedEntity> {
        try read { try CacheQueries.related($0, parent: parent.canonical, navigation: navigation) }
    }

    /// Hop-through rows: `path[0]` as an ordered relation, later segments as to-one hops.
    /// `related(Person(1), path: ["PersonCar", "Car"])` gives (PersonCar, Car?) rows.
    public func related(_ parent: EntityKey, path: [String]) throws -> Related<HopRow> {
        try read { try CacheQueries.related($0, parent: parent.canonical, path: path) }
    }

    /// Why the last fetch of `subject` (`Person(1)`, `Person(1)/PersonCar`) failed, while it has not succeeded since.
    public func fetchError(subject: String) throws -> String? {
        try read { try CacheQueries.fetchError($0, subject: subject) }
    }

    /// The fetcher's status, as this process's fetcher last published it (``publishSyncStatus(_:)``).
    public func syncStatus() throws -> SyncStatus {
        statusBoard.status
    }

    /// The most recent `limit` request log entries, oldest first.
    public func requestLog(limit: Int = 500) throws -> [RequestLogEntry] {
        try read { try CacheQueries.requestLog($0, limit: limit) }
    }

    /// The `$metadata` document last fetched, for offline starts.
    public func metadataDocument() throws -> [UInt8]? {
        try read { db in
            try Data.fetchOne(db, sql: "SELECT document FROM metadataDocument WHERE id = 1").map { Array($0) }
        }
    }

    /// The annotation documents stored with `$metadata`, in the order they were stored (a later one overrides).
    public func annotationDocuments() throws -> [(source: String, document: [UInt8])] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT source, document FROM annotationDocument ORDER BY rowid").map { row in
                (row["source"], Array(row["document"] as Data))
            }
        }
    }

    /// The stored HTTP ETag for a request URL (for `If-None-Match`).
    public func validator(forURL url: String) throws -> String? {
        try read { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT etag FROM validator WHERE url = ?"), arguments: [url])
        }
    }

    /// Which positions of `range` of list `key` are cached, and how old the oldest is.
    /// The range is clipped to the list's end when the list is complete.
    public func listRangeStatus(_ key: ListKey, range: Range<Int>) throws -> ListRangeStatus {
        try read { db in
            guard let (id, state) = try CacheQueries.listState(db, key: key) else {
                return ListRangeStatus(firstMissing: range.lowerBound, oldestFetch: nil)
            }
            let end = state.isComplete ? min(range.upperBound, state.fetchedCount) : range.upperBound
            guard end > range.lowerBound else {
                return ListRangeStatus(firstMissing: nil, oldestFetch: state.fetchedAt)
            }
            let sql =
                "SELECT position, fetchedAt FROM listRow WHERE listId = ? AND position >= ? AND position < ? ORDER BY position"
            let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: [id, range.lowerBound, end])
            var expected = range.lowerBound
            var oldest: Double?
            for row in rows {
                let position: Int = row[0]
                if position != expected { break }
                expected += 1
                let fetched: Double = row[1]
                oldest = min(oldest ?? fetched, fetched)
            }
            return ListRangeStatus(
                firstMissing: expected < end ? expected : nil,
                oldestFetch: oldest.map(Date.init(timeIntervalSince1970:))
            )
        }
    }

    /// Entity keys at `range` of a stored list, in order (Sync uses them for predictions).
    public func listKeys(_ key: ListKey, range: Range<Int>) throws -> [EntityKey] {
        try read { db in
            guard let id = try CacheQueries.listId(db, key: key) else { return [] }
            let sql =
                "SELECT entityKey FROM listRow WHERE listId = ? AND position >= ? AND position < ? ORDER BY position"
            return try String.fetchAll(
                db.cachedStatement(sql: sql), arguments: [id, range.lowerBound, range.upperBound]
            ).compactMap { EntityKey(stored: $0) }
        }
    }

    /// How fresh what a resting cursor would prefetch is, in one read: when `root` itself was fetched (nil when
    /// not cached), and for each path from it the oldest fetch among the relations along it, following at most
    /// `breadth` parents per hop (nil when one of them is not known).
    ///
    /// The fetcher asks this on every rest of the cursor; a read per relation cost a transaction each.
    public func pathFreshness(
        from root: EntityKey, paths: [[String]], breadth: Int
    ) throws -> (entity: Date?, paths: [Date?]) {
        try read { db in
            let fetched = try Double.fetchOne(
                db.cachedStatement(sql: "SELECT fetchedAt FROM entity WHERE key = ?"), arguments: [root.canonical])
            var oldest: [Date?] = []
            oldest.reserveCapacity(paths.count)
            for path in paths {
                var parents = [root.canonical]
                var earliest = Double.infinity
                var known = true
                walk: for (hop, navigation) in path.enumerated() {
                    var next: [String] = []
                    let last = hop == path.count - 1
                    for parent in parents.prefix(breadth) {
                        // The last hop's keys lead nowhere: only when it was fetched is read.
                        let fetchedAt: Double?
                        if last {
                            fetchedAt = try CacheQueries.relationFetchedAt(db, parent: parent, navigation: navigation)
                        } else if let relation = try CacheQueries.relationKeys(
                            db, parent: parent, navigation: navigation)
                        {
                            fetchedAt = relation.fetchedAt.timeIntervalSince1970
                            next += relation.keys
                        } else {
                            fetchedAt = nil
                        }
                        guard let fetchedAt else {
                            known = false
                            break walk
                        }
                        earliest = min(earliest, fetchedAt)
                    }
                    parents = next
                }
                oldest.append(known && earliest.isFinite ? Date(timeIntervalSince1970: earliest) : nil)
            }
            return (fetched.map(Date.init(timeIntervalSince1970:)), oldest)
        }
    }

    /// Child keys of a known relation in order, nil while unknown.
    public func relationKeys(_ parent: EntityKey, navigation: String) throws -> (keys: [EntityKey], fetchedAt: Date)? {
        try read { db in
            try CacheQueries.relationKeys(db, parent: parent.canonical, navigation: navigation).map { known in
                (known.keys.compactMap { EntityKey(stored: $0) }, known.fetchedAt)
            }
        }
    }
}

extension CacheDatabase {
    /// The stored `__next` link of a list's contiguous chain and the position it continues at, if any: read together,
    /// since a page written between two reads moves both (a link with another page's position lands its rows there).
    public func listNextLink(_ key: ListKey) throws -> (link: String, position: Int)? {
        try read { db in
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT nextLink, nextPosition FROM list WHERE listKey = ?"),
                arguments: [key.canonical])
            guard let row, let link = row[0] as String?, let position = row[1] as Int? else { return nil }
            return (link, position)
        }
    }
}
