import Foundation
import GRDB
import ODataCore

/// A running cache observation; it stops when cancelled or deallocated.
@MainActor
public final class CacheObservation {
    private var cancellable: AnyDatabaseCancellable?
    /// An observation of something held in memory (``StatusBoard``): it ends when released.
    private var subscription: StatusBoard.Subscription?

    init(_ cancellable: AnyDatabaseCancellable) {
        self.cancellable = cancellable
    }

    init(_ subscription: StatusBoard.Subscription) {
        self.subscription = subscription
    }

    /// Stops the observation; no more values are delivered.
    public func cancel() {
        cancellable?.cancel()
        cancellable = nil
        subscription = nil
    }
}

/// Observing reads: the first value is delivered asynchronously on the main actor,
/// then a fresh one after every committed write that changes it (duplicates removed).
///
/// Delivery uses GRDB's main-actor scheduler, which works under `dispatchMain()`.
extension CacheDatabase {
    @MainActor
    func observe<Value: Sendable & Equatable>(
        _ fetch: @escaping @Sendable (Database) throws -> Value,
        onError: @escaping @MainActor (Error) -> Void,
        onChange: @escaping @MainActor (Value) -> Void
    ) -> CacheObservation {
        let observation = ValueObservation.tracking(fetch).removeDuplicates()
        return CacheObservation(observation.start(in: writer, onError: onError, onChange: onChange))
    }

    /// Observes ``listWindow(_:range:)``.
    @MainActor
    public func observeListWindow(
        _ key: ListKey, range: Range<Int>,
        onError: @escaping @MainActor (Error) -> Void = { _ in },
        onChange: @escaping @MainActor (ListWindow) -> Void
    ) -> CacheObservation {
        observe({ try CacheQueries.listWindow($0, key: key, range: range) }, onError: onError, onChange: onChange)
    }

    /// Observes ``fetchError(subject:)``.
    @MainActor
    public func observeFetchError(
        subject: String,
        onError: @escaping @MainActor (Error) -> Void = { _ in },
        onChange: @escaping @MainActor (String?) -> Void
    ) -> CacheObservation {
        observe({ try CacheQueries.fetchError($0, subject: subject) }, onError: onError, onChange: onChange)
    }

    /// Observes ``entity(_:)``.
    @MainActor
    public func observeEntity(
        _ key: EntityKey,
        onError: @escaping @MainActor (Error) -> Void = { _ in },
        onChange: @escaping @MainActor (CachedEntity?) -> Void
    ) -> CacheObservation {
        let canonical = key.canonical
        return observe({ try CacheQueries.entity($0, key: canonical) }, onError: onError, onChange: onChange)
    }

    /// Observes ``related(_:navigation:)``.
    @MainActor
    public func observeRelated(
        _ parent: EntityKey, navigation: String,
        onError: @escaping @MainActor (Error) -> Void = { _ in },
        onChange: @escaping @MainActor (Related<CachedEntity>) -> Void
    ) -> CacheObservation {
        let canonical = parent.canonical
        return observe(
            { try CacheQueries.related($0, parent: canonical, navigation: navigation) },
            onError: onError, onChange: onChange
        )
    }

    /// Observes ``related(_:path:)``.
    @MainActor
    public func observeRelated(
        _ parent: EntityKey, path: [String],
        onError: @escaping @MainActor (Error) -> Void = { _ in },
        onChange: @escaping @MainActor (Related<HopRow>) -> Void
    ) -> CacheObservation {
        let canonical = parent.canonical
        return observe(
            { try CacheQueries.related($0, parent: canonical, path: path) }, onError: onError, onChange: onChange)
    }

    /// Observes ``syncStatus()``, which is held in memory (``StatusBoard``).
    @MainActor
    public func observeSyncStatus(
        onError: @escaping @MainActor (Error) -> Void = { _ in },
        onChange: @escaping @MainActor (SyncStatus) -> Void
    ) -> CacheObservation {
        statusBoard.observe(onChange)
    }

    /// Observes ``requestLog(limit:)`` (the inspector screen).
    @MainActor
    public func observeRequestLog(
        limit: Int = 500,
        onError: @escaping @MainActor (Error) -> Void = { _ in },
        onChange: @escaping @MainActor ([RequestLogEntry]) -> Void
    ) -> CacheObservation {
        observe({ try CacheQueries.requestLog($0, limit: limit) }, onError: onError, onChange: onChange)
    }
}
