import Dispatch
import Synchronization

/// The fetcher's status (``SyncStatus``: online, requests on their way, the last error), held in memory for this
/// process's screens (issue 34). It changes with every request that starts or ends and means nothing to another
/// process on the same file or to a later run, so it is not a transaction each: a transaction would take the
/// writer from the fetcher's ingest and tell every cache reader that something changed (``CacheDatabase/changeCount``).
///
/// Observers get the first value and then each change, on the main actor, asynchronously, without repeats, as the
/// cache's other observations do; changes published faster than the main actor takes them arrive as the latest one.
final class StatusBoard: Sendable {
    private struct State {
        var status = SyncStatus()
        var observers: [Int: StatusObserver] = [:]
        var nextID = 0
        var deliveryScheduled = false
    }

    private let state = Mutex(State())

    var status: SyncStatus { state.withLock { $0.status } }

    /// Makes `status` the current one and, when it differs, tells the observers.
    func publish(_ status: SyncStatus) {
        let schedule = state.withLock { state -> Bool in
            guard state.status != status else { return false }
            state.status = status
            guard !state.deliveryScheduled, !state.observers.isEmpty else { return false }
            state.deliveryScheduled = true
            return true
        }
        if schedule { DispatchQueue.main.async { MainActor.assumeIsolated { self.deliver() } } }
    }

    @MainActor
    private func deliver() {
        let (status, ids) = state.withLock { state in
            state.deliveryScheduled = false
            return (state.status, state.observers.keys.sorted())
        }
        for id in ids {
            // (one observer's change may cancel another's observation: that one is told nothing more)
            state.withLock { $0.observers[id] }?.deliver(status)
        }
    }

    @MainActor
    func observe(_ onChange: @escaping @MainActor (SyncStatus) -> Void) -> CacheObservation {
        let observer = StatusObserver(onChange)
        let id = state.withLock { state in
            state.nextID += 1
            state.observers[state.nextID] = observer
            return state.nextID
        }
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                // (not to an observation cancelled before its first value)
                guard let status = self.state.withLock({ $0.observers[id] != nil ? $0.status : nil }) else { return }
                observer.deliver(status)
            }
        }
        return CacheObservation(
            Subscription { [weak self] in _ = self?.state.withLock { $0.observers.removeValue(forKey: id) } })
    }

    /// An observer's place on the board, given up when released.
    final class Subscription: Sendable {
        private let end: @Sendable () -> Void

        init(end: @escaping @Sendable () -> Void) {
            self.end = end
        }

        deinit { end() }
    }
}

/// One observer of the status, and what it was last told.
@MainActor
final class StatusObserver {
    private let onChange: @MainActor (SyncStatus) -> Void
    private var last: SyncStatus?

    init(_ onChange: @escaping @MainActor (SyncStatus) -> Void) {
        self.onChange = onChange
    }

    func deliver(_ status: SyncStatus) {
        guard status != last else { return }
        last = status
        onChange(status)
    }
}
