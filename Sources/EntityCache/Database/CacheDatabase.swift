import Foundation
import GRDB
import Synchronization

/// One cache database: a SQLite file (WAL, via `DatabasePool`) or an in-memory queue.
///
/// Screens use the read API (`CacheDatabase+Reads`, `+Observation`); only Sync
/// writes, through ``write(_:)`` (awaiting the commit) or ``enqueueWrite(_:then:)``
/// (not waiting); tools and tests may ``writeBlocking(_:)``. The type is `Sendable`: GRDB's writers serialise their
/// own access, and nothing else here is mutable.
public final class CacheDatabase: Sendable {
    /// The underlying GRDB writer (a pool for files, a queue in memory).
    let writer: any DatabaseWriter
    /// The file path, nil in memory.
    public let path: String?
    /// Groups the fetcher's concurrent writes into shared transactions.
    let groupCommit: GroupCommit
    /// Checkpoints the WAL off the writer's thread (files only).
    let checkpointer: WALCheckpointer?
    /// Transactions ended through this object's writer so far (see ``changeCount``).
    let commits: Commits
    /// Who claims the queued writes this object's user sends: another process (or another cache object on the same
    /// file) is another claimant.
    public let claimant = OutboxClaimant()
    /// The fetcher's status for this process's screens, in memory (``publishSyncStatus(_:)``).
    let statusBoard = StatusBoard()

    /// Opens (creating with mode 0600 if needed) and migrates the cache at `path`.
    public init(path: String) throws {
        let checkpointer = WALCheckpointer(path: path)
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Small page caches: the fetcher's memory budget is 40 MB with 1M rows. The writer's is
            // larger (it walks the B-trees it grows); a reader's holds the interior pages a window
            // read descends through, and the leaves it reads are mostly new each time anyway.
            // Savepoint journals in memory: every grouped write runs in a savepoint (``GroupCommit``),
            // whose journal would otherwise spill to a temporary file past 64 KiB.
            let cacheKilobytes = db.configuration.readonly ? 2_000 : 4_000
            try db.execute(
                sql: "PRAGMA cache_size = -\(cacheKilobytes); PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY")
            if !db.configuration.readonly, let connection = db.sqliteConnection {
                checkpointer.attach(toWriter: connection)
            }
        }
        configuration.maximumReaderCount = 2
        // The pool's own threads do background work (an observation's read after a write); a screen's read runs
        // on the screen's thread. libdispatch on Linux runs background QoS on threads at nice 10 (GRDB's default,
        // userInitiated, is nice -2 where that is allowed): with many sessions on a few cores, a keypress is not
        // queued behind the other sessions' prefetches.
        configuration.qos = .background
        // Another process may hold the file for a moment (a second session, WAL recovery after a crash):
        // wait for it rather than fail with "database is locked".
        configuration.busyMode = .timeout(10)
        try Self.createPrivateDirectory(of: path)
        let pool = try CacheFileLock.holding(CacheFileLock.path(for: path)) { () throws -> DatabasePool in
            try Self.createPrivateFile(at: path)
            let pool = try DatabasePool(path: path, configuration: configuration)
            try CacheSchema.migrator.migrate(pool)
            return pool
        }
        self.writer = pool
        self.path = path
        self.checkpointer = checkpointer
        self.commits = Commits(counting: pool)
        self.groupCommit = GroupCommit(writer: pool, finishTransaction: Self.notifyWithoutRowIDChanges)
    }

    /// An empty cache in memory (tests, throwaway sessions).
    public init() throws {
        let queue = try DatabaseQueue()
        try CacheSchema.migrator.migrate(queue)
        self.writer = queue
        self.path = nil
        self.checkpointer = nil
        self.commits = Commits(counting: queue)
        self.groupCommit = GroupCommit(writer: queue, finishTransaction: Self.notifyWithoutRowIDChanges)
    }

    deinit {
        checkpointer?.close()
    }

    /// Creates the directory of the file at `path` (mode 0700) when missing.
    static func createPrivateDirectory(of path: String) throws {
        let manager = FileManager.default
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !manager.fileExists(atPath: directory) {
            try manager.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
            )
        }
    }

    /// Creates the file (and its directory, mode 0700) readable by the owner only.
    static func createPrivateFile(at path: String) throws {
        let manager = FileManager.default
        try createPrivateDirectory(of: path)
        // Made in place, never replaced: FileManager's createFile writes a temporary file and renames it over the
        // path, so a second browser starting at the same moment swapped the first one's new cache for an empty
        // file under it ("no such table").
        let descriptor = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        close(descriptor)
        // SQLite gives the -wal and -shm files the database file's mode.
        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// Makes `status` the fetcher's status: for this process's screens, in memory, not a transaction
    /// (``StatusBoard``). Not part of ``CacheReader``, the face screens hold.
    public func publishSyncStatus(_ status: SyncStatus) {
        statusBoard.publish(status)
    }

    /// Runs `body` in one write transaction of its own, blocking the calling thread until it is committed: for
    /// tools and tests, never for the fetcher or the outbox, which write through ``write(_:)``
    /// or ``enqueueWrite(_:then:)`` and so never hold a thread of the shared pool while the writer is busy. Not
    /// part of ``CacheReader``: screens cannot write.
    @discardableResult
    public func writeBlocking<T>(_ body: (CacheWriter) throws -> T) throws -> T {
        try writer.write { db in
            let result = try body(CacheWriter(db: db))
            try Self.notifyWithoutRowIDChanges(db)
            return result
        }
    }

    /// A number that changes after every write through this object has committed (or failed), read without
    /// touching the database: what was worked out from the cache is still true while it has not changed (a
    /// resting cursor's freshness, the row a screen would land on). Writes by another process are not counted.
    ///
    /// Counted after the commit: a reader that takes the number before it reads can only see it change later.
    public var changeCount: UInt64 { commits.value }

    /// Runs `body` atomically without blocking the caller's thread. Not part of ``CacheReader``.
    ///
    /// Writes that arrive while another is being written share its successor's transaction,
    /// each in its own savepoint (``GroupCommit``): `body` is all-or-nothing and its error is
    /// its own, and observers may see it land together with its neighbours.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (CacheWriter) throws -> T) async throws -> T {
        try await groupCommit.write { db in try body(CacheWriter(db: db)) }
    }

    /// Queues `body` behind the writes already asked for and returns at once, neither blocking nor suspending the
    /// caller: for an actor whose step must end as it began (the fetcher recording a request it ended). Writes are
    /// made in the order they were asked for, so a later ``write(_:)`` by the same caller
    /// sees this one. `then` is called once the write is committed or has failed, off the caller's executor; a
    /// caller whose waiters must see the write resumes them there. Not part of ``CacheReader``.
    public func enqueueWrite(
        _ body: @escaping @Sendable (CacheWriter) throws -> Void,
        then done: @escaping @Sendable (Error?) -> Void = { _ in }
    ) {
        groupCommit.enqueue({ db in try body(CacheWriter(db: db)) }) { result in
            if case .failure(let error) = result { done(error) } else { done(nil) }
        }
    }

    /// Returns once every write asked for before it (``write(_:)``, ``enqueueWrite(_:then:)``) is committed or has
    /// failed: an empty write behind them, as writes are made in the order asked for.
    public func writesSettled() async {
        _ = try? await groupCommit.write { _ in }
    }

    /// The counter behind ``changeCount``: every transaction the writer ends, committed or rolled back, whoever
    /// wrote it (GRDB tells every transaction observer of every end, whatever it observes).
    final class Commits: TransactionObserver, Sendable {
        private let counter = Atomic<UInt64>(0)
        var value: UInt64 { counter.load(ordering: .acquiring) }

        init(counting writer: any DatabaseWriter) {
            writer.add(transactionObserver: self, extent: .databaseLifetime)
        }

        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { counter.add(1, ordering: .releasing) }
        func databaseDidRollback(_ db: Database) { counter.add(1, ordering: .releasing) }
    }

    /// Tables declared `WITHOUT ROWID`: SQLite's update hook, which GRDB's observation relies on,
    /// never fires for them, so a screen observing a relation or an entity would miss writes.
    static let withoutRowIDTables = ["entity", "relation", "listRow", "validator"]

    /// Tells observers that the `WITHOUT ROWID` tables may have changed in this transaction.
    /// Observations re-run their query and, unchanged values being removed as duplicates, redraw
    /// only when what they show did change.
    static func notifyWithoutRowIDChanges(_ db: Database) throws {
        for table in withoutRowIDTables { try db.notifyChanges(in: Table(table)) }
    }

    /// A consistent read (used by the read API and by Sync's freshness checks).
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.read(body)
    }
}
