import Dispatch
import Foundation
import GRDBSQLite
import Synchronization

/// Checkpoints the cache's write-ahead log on a background queue instead of inside the writer's commits.
///
/// SQLite's automatic checkpoint runs in the commit that pushes the WAL past 1,000 pages, on the
/// writer's thread: measured on ingest, about a fifth of the writer's time. Here the writer
/// connection's automatic checkpoint is off and its WAL hook, told the log's size after every
/// commit, asks for a `PASSIVE` checkpoint on this object's own connection and queue once the log
/// passes ``threshold`` pages. A passive checkpoint takes no lock that writers or readers wait
/// for, so the writer goes on committing while the log is copied back. Should the log still
/// reach ``hardLimit`` (a checkpoint cannot keep up, or keeps failing), the writer checkpoints
/// inline, as SQLite would have.
///
/// `@unchecked Sendable`: the checkpoint connection is used only on `queue`; the rest is under `state`'s lock.
final class WALCheckpointer: @unchecked Sendable {
    /// WAL pages after which a background checkpoint is requested (SQLite's own default).
    static let threshold: Int32 = 1_000
    /// WAL pages after which the writer checkpoints inline.
    static let hardLimit: Int32 = 16_000
    /// Pages a background checkpoint may leave for the writer to finish (see ``walDidGrow``).
    static let tail: Int32 = 300

    let path: String
    private let queue = DispatchQueue(label: "cardealer.cache.checkpoint", qos: .utility)
    private struct State {
        var isScheduled = false
        var isClosed = false
        /// Log pages the last background checkpoint had copied; 0 once the writer finished the log.
        var backfilled: Int32 = 0
    }
    private let state = Mutex(State())
    private var connection: OpaquePointer?

    init(path: String) {
        self.path = path
    }

    /// Turns the writer connection's automatic checkpoint off and routes its WAL hook here.
    ///
    /// The hook holds this object strongly (it is tiny); ``close()`` makes it inert.
    func attach(toWriter writer: OpaquePointer) {
        sqlite3_wal_autocheckpoint(writer, 0)
        let context = Unmanaged.passRetained(self).toOpaque()
        sqlite3_wal_hook(
            writer,
            { context, writer, _, pages in
                guard let context else { return SQLITE_OK }
                Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().walDidGrow(
                    to: pages, writer: writer)
                return SQLITE_OK
            }, context)
    }

    /// Called by SQLite on the writer's thread after each commit, with the log's size in pages.
    ///
    /// A passive checkpoint beside a busy writer never catches up with the log's end, and SQLite
    /// starts the log over only once all of it is copied. So when a background checkpoint has
    /// left no more than ``tail`` pages, the writer copies those itself (little work), and its
    /// next transaction starts the log over instead of growing it.
    private func walDidGrow(to pages: Int32, writer: OpaquePointer?) {
        guard pages >= Self.threshold else { return }
        let (schedule, finish) = state.withLock { state -> (Bool, Bool) in
            let backfilled = state.backfilled
            let caughtUp = backfilled > 0 && backfilled <= pages && pages - backfilled <= Self.tail
            if caughtUp || pages >= Self.hardLimit || state.isClosed {
                state.backfilled = 0
                return (false, true)
            }
            guard !state.isScheduled else { return (false, false) }
            state.isScheduled = true
            return (true, false)
        }
        if finish, let writer {
            sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        } else if schedule {
            queue.async { self.checkpoint() }
        }
    }

    /// Copies what it can of the log back into the database file.
    private func checkpoint() {
        var copied: Int32 = -1
        defer {
            state.withLock {
                $0.isScheduled = false
                if copied > 0 { $0.backfilled = copied }
            }
        }
        guard !state.withLock({ $0.isClosed }) else { return }
        if connection == nil {
            var opened: OpaquePointer?
            guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
                sqlite3_close_v2(opened)
                return
            }
            // A connection learns the file is in WAL mode, and opens the log, with its first read;
            // until then SQLite 3.40 treats a checkpoint request as "not in WAL mode".
            guard sqlite3_exec(opened, "PRAGMA schema_version", nil, nil, nil) == SQLITE_OK else {
                sqlite3_close_v2(opened)
                return
            }
            connection = opened
        }
        // Busy (another checkpoint running) or failed: the next commit past the threshold asks again.
        var logged: Int32 = -1
        sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, &logged, &copied)
    }

    /// Closes the checkpoint connection; later hooks do nothing (the writer's own close checkpoints).
    func close() {
        state.withLock { $0.isClosed = true }
        queue.sync {
            sqlite3_close_v2(connection)
            connection = nil
        }
    }
}
