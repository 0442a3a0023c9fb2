import Foundation
import ODataCore

/// The cache as screens see it: read and observed, never written (as GRDB separates a `DatabaseReader` from a
/// `DatabaseWriter`). ``CacheDatabase`` is one; the browser holds the cache only as this, so a screen that writes
/// to the cache does not compile. Writes are the fetcher's and the outbox's (``CacheDatabase/write(_:)``).
///
/// Each read has an observing twin, called on the main actor, whose `onChange` runs there with the first value and
/// after each change that alters it.
public protocol CacheReader: AnyObject, Sendable {
    /// A number that changes after every write through this cache (``CacheDatabase/changeCount``).
    var changeCount: UInt64 { get }

    /// The rows at `range` of the stored list `key` (gaps where not fetched yet) and its state.
    func listWindow(_ key: ListKey, range: Range<Int>) throws -> ListWindow
    /// The state of a stored list, nil if it was never fetched.
    func listState(_ key: ListKey) throws -> ListState?
    /// Which positions of `range` the list holds, and how fresh.
    func listRangeStatus(_ key: ListKey, range: Range<Int>) throws -> ListRangeStatus
    /// One entity by key, for display: values longer than a screen can show are cut.
    func entity(_ key: EntityKey) throws -> CachedEntity?
    /// One entity with every value whole, however long: for a view of one full value.
    func fullEntity(_ key: EntityKey) throws -> CachedEntity?
    /// The ordered entities behind `navigation` of `parent`: unknown, empty or the list.
    func related(_ parent: EntityKey, navigation: String) throws -> Related<CachedEntity>
    /// Hop-through rows: `path[0]` as an ordered relation, later segments as to-one hops.
    func related(_ parent: EntityKey, path: [String]) throws -> Related<HopRow>
    /// Why the last fetch of `subject` failed, while it has not succeeded since.
    func fetchError(subject: String) throws -> String?
    /// What the call `key` last answered, if it was read.
    func callResult(_ key: String) throws -> CallResult?
    /// The fetcher's status, as this process's fetcher last published it.
    func syncStatus() throws -> SyncStatus
    /// The most recent `limit` request log entries, oldest first.
    func requestLog(limit: Int) throws -> [RequestLogEntry]
    /// Every write not yet settled, in the order made.
    func outboxEntries() throws -> [OutboxEntry]
    /// How many writes are queued, and how many wait for the user.
    func outboxCounts() throws -> OutboxCounts

    @MainActor func observeListWindow(
        _ key: ListKey, range: Range<Int>, onError: @escaping @MainActor (Error) -> Void,
        onChange: @escaping @MainActor (ListWindow) -> Void
    ) -> CacheObservation
    @MainActor func observeEntity(
        _ key: EntityKey, onError: @escaping @MainActor (Error) -> Void,
        onChange: @escaping @MainActor (CachedEntity?) -> Void
    ) -> CacheObservation
    @MainActor func observeRelated(
        _ parent: EntityKey, navigation: String, onError: @escaping @MainActor (Error) -> Void,
        onChange: @escaping @MainActor (Related<CachedEntity>) -> Void
    ) -> CacheObservation
    @MainActor func observeRelated(
        _ parent: EntityKey, path: [String], onError: @escaping @MainActor (Error) -> Void,
        onChange: @escaping @MainActor (Related<HopRow>) -> Void
    ) -> CacheObservation
    @MainActor func observeFetchError(
        subject: String, onError: @escaping @MainActor (Error) -> Void,
        onChange: @escaping @MainActor (String?) -> Void
    ) -> CacheObservation
    @MainActor func observeCallResult(
        _ key: String, onError: @escaping @MainActor (Error) -> Void,
        onChange: @escaping @MainActor (CallResult?) -> Void
    ) -> CacheObservation
    @MainActor func observeSyncStatus(
        onError: @escaping @MainActor (Error) -> Void, onChange: @escaping @MainActor (SyncStatus) -> Void
    ) -> CacheObservation
    @MainActor func observeRequestLog(
        limit: Int, onError: @escaping @MainActor (Error) -> Void,
        onChange: @escaping @MainActor ([RequestLogEntry]) -> Void
    ) -> CacheObservation
    @MainActor func observeOutbox(
        onError: @escaping @MainActor (Error) -> Void, onChange: @escaping @MainActor ([OutboxEntry]) -> Void
    ) -> CacheObservation
    @MainActor func observeOutboxCounts(
        onError: @escaping @MainActor (Error) -> Void, onChange: @escaping @MainActor (OutboxCounts) -> Void
    ) -> CacheObservation
}

extension CacheDatabase: CacheReader {}

extension CacheReader {
    /// The most recent 500 request log entries, oldest first.
    public func requestLog() throws -> [RequestLogEntry] { try requestLog(limit: 500) }

    // The observations, their errors ignored (a screen keeps what it showed).

    @MainActor public func observeListWindow(
        _ key: ListKey, range: Range<Int>, onChange: @escaping @MainActor (ListWindow) -> Void
    ) -> CacheObservation {
        observeListWindow(key, range: range, onError: { _ in }, onChange: onChange)
    }

    @MainActor public func observeEntity(
        _ key: EntityKey, onChange: @escaping @MainActor (CachedEntity?) -> Void
    ) -> CacheObservation {
        observeEntity(key, onError: { _ in }, onChange: onChange)
    }

    @MainActor public func observeRelated(
        _ parent: EntityKey, navigation: String, onChange: @escaping @MainActor (Related<CachedEntity>) -> Void
    ) -> CacheObservation {
        observeRelated(parent, navigation: navigation, onError: { _ in }, onChange: onChange)
    }

    @MainActor public func observeRelated(
        _ parent: EntityKey, path: [String], onChange: @escaping @MainActor (Related<HopRow>) -> Void
    ) -> CacheObservation {
        observeRelated(parent, path: path, onError: { _ in }, onChange: onChange)
    }

    @MainActor public func observeFetchError(
        subject: String, onChange: @escaping @MainActor (String?) -> Void
    ) -> CacheObservation {
        observeFetchError(subject: subject, onError: { _ in }, onChange: onChange)
    }

    @MainActor public func observeCallResult(
        _ key: String, onChange: @escaping @MainActor (CallResult?) -> Void
    ) -> CacheObservation {
        observeCallResult(key, onError: { _ in }, onChange: onChange)
    }

    @MainActor public func observeSyncStatus(onChange: @escaping @MainActor (SyncStatus) -> Void) -> CacheObservation {
        observeSyncStatus(onError: { _ in }, onChange: onChange)
    }

    @MainActor public func observeRequestLog(
        limit: Int = 500, onChange: @escaping @MainActor ([RequestLogEntry]) -> Void
    ) -> CacheObservation {
        observeRequestLog(limit: limit, onError: { _ in }, onChange: onChange)
    }

    @MainActor public func observeOutbox(onChange: @escaping @MainActor ([OutboxEntry]) -> Void) -> CacheObservation {
        observeOutbox(onError: { _ in }, onChange: onChange)
    }

    @MainActor public func observeOutboxCounts(
        onChange: @escaping @MainActor (OutboxCounts) -> Void
    ) -> CacheObservation {
        observeOutboxCounts(onError: { _ in }, onChange: onChange)
    }
}
