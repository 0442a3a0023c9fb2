import Foundation
import GRDB
import Synchronization

/// The demo's SQLite database: opened from a cached file, or generated into it first.
///
/// A file is reused when its `demo_meta` row says it was written by the current generator version
/// (and, when a number of people was asked for, for that many people). Generation writes to a unique
/// temporary file that is renamed into place, so concurrent starts never see a half-written file, and
/// holds a lock file beside it, so concurrent first starts generate it once.
public struct DataStore: Sendable {
    /// The read-only-in-practice connection pool the query engine uses.
    public let reader: DatabasePool
    /// Where the data lives.
    public let path: String
    /// Number of people in the data.
    public let people: Int
    /// Whether this start generated the data (false when a cached file was reused).
    public let generated: Bool

    /// Opens `path` (default: a cache file in the temporary directory), generating it when needed.
    ///
    /// - Parameters:
    ///   - people: the number of people wanted; nil takes whatever a cached file holds, or 200.
    ///   - hostile: the variant whose strings try to take over terminals (``HostileStrings``).
    ///   - inBackground: reads at background QoS (``DemoServerConfiguration/readsInBackground``).
    public static func open(
        path: String?, people: Int?, hostile: Bool = false, inBackground: Bool = false
    ) throws -> DataStore {
        let wanted = people ?? 200
        let variant = hostile ? "hostile" : "standard"
        let path =
            path
            ?? FileManager.default.temporaryDirectory
            .appendingPathComponent(
                "cardealer-demo-v\(DataGenerator.version)-\(wanted)\(hostile ? "-hostile" : "").sqlite"
            )
            .path
        var generated = false
        try generationLock.withLock { _ in
            try withFileLock(path + ".lock") {
                if cachedPeople(at: path, wanted: people, variant: variant) == nil {
                    try generate(people: wanted, hostile: hostile, at: path)
                    generated = true
                }
                try addMissingIndexes(at: path)
            }
        }
        var configuration = Configuration()
        configuration.maximumReaderCount = 8
        if inBackground { configuration.qos = .background }
        // Several servers (parallel tests) may open the same cached file at once.
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            db.add(function: Self.unicodeLower)
            db.add(function: Self.unicodeUpper)
        }
        let pool = try generationLock.withLock { _ in try DatabasePool(path: path, configuration: configuration) }
        let count = try pool.read { db in try Int.fetchOne(db, sql: "SELECT people FROM demo_meta") } ?? wanted
        return DataStore(reader: pool, path: path, people: count, generated: generated)
    }

    /// Reads the substring-search indexes and the tables they point into, once, so that the operating system
    /// holds them: on a file it has not read lately (a first start, a machine short of memory) the first
    /// `$filter` otherwise waits on the disk (measured on 1,000,000 people with the page cache dropped:
    /// 676 ms against 79 ms, most of it reading matched rows by row id). Reads only (74 MB on a million
    /// people, under a second from a cold disk here), on one of the pool's readers.
    public func prewarmSearch() async {
        for set in ServiceSchema.carDealer.entitySets where !set.searchable.isEmpty {
            let data = set.searchTable + "_data"
            let columns = set.searchable.map { "length(\"\($0)\")" }.joined(separator: " + ")
            _ = try? await reader.read { db in
                guard try db.tableExists(data) else { return }
                _ = try Int.fetchOne(db, sql: "SELECT sum(length(block)) FROM \"\(data)\"")
                // The table itself, not an index that covers these columns: a match is read by its row id.
                _ = try Int.fetchOne(db, sql: "SELECT sum(\(columns)) FROM \"\(set.name)\" NOT INDEXED")
            }
        }
    }

    /// A file written before an index was added gets it, and fresh statistics (once: seconds on a million people);
    /// a file without the work orders or the cars' options gets them (``WorkOrderSet/prepare(_:)``,
    /// ``CarOptions/prepare(_:)``).
    static func addMissingIndexes(at path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in db.add(function: Self.unicodeLower) }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in
            let count = "SELECT COUNT(*) FROM sqlite_master WHERE type IN ('index', 'table')"
            // The work orders (their table is made once; the statistics need not know it).
            try WorkOrderSet.prepare(db)
            try CarOptions.prepare(db)
            let before = try Int.fetchOne(db, sql: count)
            for statement in ServiceSchema.carDealer.indexStatements { try db.execute(sql: statement) }
            for set in ServiceSchema.carDealer.entitySets where !set.searchable.isEmpty {
                guard try !db.tableExists(set.searchTable) else { continue }
                for statement in set.searchStatements { try db.execute(sql: statement) }
            }
            // The planner weighs indexes by the statistics the generator gathered: a new one needs its own.
            if try Int.fetchOne(db, sql: count) != before { try db.execute(sql: "ANALYZE") }
        }
        try queue.close()
    }

    /// `$filter`'s `tolower`: SQLite's own `lower` folds ASCII only, so `Åström` would stay as it is.
    static let unicodeLower = DatabaseFunction("odata_tolower", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0])?.lowercased()
    }

    /// `$filter`'s `toupper`, for every script (see ``unicodeLower``).
    static let unicodeUpper = DatabaseFunction("odata_toupper", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0])?.uppercased()
    }

    /// Serialises check-then-generate within this process (servers started by parallel tests).
    private static let generationLock = Mutex(())

    /// Runs `body` holding an exclusive `flock` on `lockPath`: check-then-generate across processes.
    ///
    /// Two first starts at once would otherwise both generate, and the second's rename (and its removal
    /// of a stale `-wal`/`-shm`) would pull the file from under the first, which may already serve it.
    /// The second waits here instead, then finds the first's file and reuses it. The lock goes with the
    /// descriptor, so a process that dies while generating releases it.
    static func withFileLock<T>(_ lockPath: String, _ body: () throws -> T) throws -> T {
        let descriptor = Foundation.open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: lockPath])
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw CocoaError(.fileLocking, userInfo: [NSFilePathErrorKey: lockPath]) }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// The number of people in a usable cached file, or nil.
    static func cachedPeople(at path: String, wanted: Int?, variant: String = "standard") -> Int? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            let row = try queue.read { db in try Row.fetchOne(db, sql: "SELECT version, people, variant FROM demo_meta")
            }
            guard let row, row["version"] as Int == DataGenerator.version, row["variant"] as String == variant
            else { return nil }
            let people: Int = row["people"]
            if let wanted, wanted != people { return nil }
            return people
        } catch {
            return nil
        }
    }

    /// Generates the data into a temporary file (mode 0600) next to `path`, then moves it into place.
    static func generate(people: Int, hostile: Bool = false, at path: String) throws {
        let temporary = path + ".tmp-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
            db.add(function: Self.unicodeLower)
        }
        do {
            guard
                FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600])
            else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary]) }
            let queue = try DatabaseQueue(path: temporary, configuration: configuration)
            let schema = ServiceSchema.carDealer
            try queue.inTransaction { db in
                for statement in schema.createStatements { try db.execute(sql: statement) }
                _ = try DataGenerator(people: people, hostile: hostile).generate(into: db)
                try CarOptions.fill(db)
                for statement in schema.indexStatements { try db.execute(sql: statement) }
                for set in schema.entitySets {
                    for statement in set.searchStatements { try db.execute(sql: statement) }
                }
                try db.execute(
                    sql:
                        "CREATE TABLE demo_meta (version INTEGER NOT NULL, people INTEGER NOT NULL, variant TEXT NOT NULL)"
                )
                try db.execute(
                    sql: "INSERT INTO demo_meta VALUES (?, ?, ?)",
                    arguments: [DataGenerator.version, people, hostile ? "hostile" : "standard"]
                )
                return .commit
            }
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "ANALYZE")
                try db.execute(sql: "PRAGMA journal_mode = WAL")
            }
            try queue.close()
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            if rename(temporary, path) != 0 {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }
}
