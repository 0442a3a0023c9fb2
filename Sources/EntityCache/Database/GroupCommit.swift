import Dispatch
import Foundation
import GRDB
import Synchronization

/// Commits the asynchronous writes that arrive while the writer is busy together, in one transaction.
///
/// The fetcher runs several jobs at once, each decoding its response off the writer and then
/// asking for one write. When the writer is idle a write starts at once, alone; while it is busy,
/// the writes that queue up behind it are done next as one transaction, each inside its own
/// savepoint. That keeps every write atomic and isolated — one that throws is rolled back alone
/// and its caller gets the error — while the commit's work (log frames for the pages touched,
/// observers re-reading) is paid once per group rather than once per write. Observers see a group
/// land at once.
///
/// `@unchecked Sendable`: the writer and `finishTransaction` are used only on `queue`, and the writes waiting are
/// under `queued`'s lock.
final class GroupCommit: @unchecked Sendable {
    /// The most writes one transaction takes, so that the first of them is not kept waiting long.
    static let maximumGroup = 16

    /// One write waiting for the writer.
    struct Pending: Sendable {
        /// Runs the write in the group's transaction — in a savepoint unless `alone` in it —
        /// and says how it went.
        let perform: @Sendable (_ db: Database, _ alone: Bool) -> Reply
        /// Tells the caller the group's transaction failed.
        let abandon: @Sendable (Error) -> Void
    }

    /// How one write went, and what to tell its caller once the transaction is settled.
    struct Reply {
        var error: Error?
        var send: @Sendable () -> Void
    }

    private let writer: any DatabaseWriter
    private let finishTransaction: (Database) throws -> Void
    /// Background work, as the pool's (``CacheDatabase/init(path:)``).
    private let queue = DispatchQueue(label: "cardealer.cache.group-commit", qos: .background)
    /// The writes waiting for the writer, and whether `queue` is writing them.
    private struct Queued {
        var pending: [Pending] = []
        var isDraining = false
    }
    private let queued = Mutex(Queued())

    /// - Parameter finishTransaction: run at the end of every transaction (the cache's change notices).
    init(writer: any DatabaseWriter, finishTransaction: @escaping (Database) throws -> Void) {
        self.writer = writer
        self.finishTransaction = finishTransaction
    }

    /// Runs `body` in a transaction shared with the writes queued beside it; returns once committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            enqueue(body) { continuation.resume(with: $0) }
        }
    }

    /// Queues `body` behind the writes already queued and returns at once; `done` is told how it went once its
    /// transaction is settled, on the writer's queue.
    func enqueue<T: Sendable>(
        _ body: @escaping @Sendable (Database) throws -> T, done: @escaping @Sendable (Result<T, Error>) -> Void
    ) {
        let item = Pending(
            perform: { db, alone in
                do {
                    let result: T
                    if alone {
                        result = try body(db)
                    } else {
                        var value: T?
                        try db.inSavepoint {
                            value = try body(db)
                            return .commit
                        }
                        result = value!
                    }
                    return Reply(error: nil) { done(.success(result)) }
                } catch {
                    return Reply(error: error) { done(.failure(error)) }
                }
            },
            abandon: { done(.failure($0)) }
        )
        let start = queued.withLock { queued in
            queued.pending.append(item)
            guard !queued.isDraining else { return false }
            queued.isDraining = true
            return true
        }
        if start { queue.async { self.drain() } }
    }

    /// Writes groups until nothing is waiting.
    private func drain() {
        while true {
            let group: [Pending] = queued.withLock { queued in
                guard !queued.pending.isEmpty else {
                    queued.isDraining = false
                    return []
                }
                let group = Array(queued.pending.prefix(Self.maximumGroup))
                queued.pending.removeFirst(group.count)
                return group
            }
            guard !group.isEmpty else { return }
            do {
                // Alone in its transaction, a write needs no savepoint: if it throws, the
                // transaction is rolled back instead, and its caller gets the error.
                let alone = group.count == 1
                let replies = try writer.write { db in
                    let replies = group.map { $0.perform(db, alone) }
                    if alone, let error = replies[0].error { throw error }
                    try finishTransaction(db)
                    return replies
                }
                for reply in replies { reply.send() }
            } catch {
                for item in group { item.abandon(error) }
            }
        }
    }
}
