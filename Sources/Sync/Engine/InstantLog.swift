import EntityCache
import Synchronization

/// The request log's lines for outcomes that sent nothing (a job joined by another screen, one dropped before it
/// started), written in as few writes as the writer allows: a line added while a write of them is queued and not
/// yet begun goes in that write. These come with every cursor move; one write each would queue without bound
/// behind a busy writer, and the user's own saves would wait behind them.
final class InstantLog: Sendable {
    private struct Waiting {
        var lines: [RequestLogEntry] = []
        /// A write is queued that has not taken the lines yet.
        var writeQueued = false
    }
    private let waiting = Mutex(Waiting())
    private let cache: CacheDatabase

    init(cache: CacheDatabase) {
        self.cache = cache
    }

    /// Adds `line`; queues a write of the lines unless one that will take it is queued already.
    func add(_ line: RequestLogEntry) {
        let queue = waiting.withLock { waiting in
            waiting.lines.append(line)
            defer { waiting.writeQueued = true }
            return !waiting.writeQueued
        }
        guard queue else { return }
        cache.enqueueWrite { [self] session in
            for line in take() { try session.appendRequestLog(line) }
        }
    }

    /// The lines waiting, taken by the write that runs now (a line added after this queues the next write).
    private func take() -> [RequestLogEntry] {
        waiting.withLock { waiting in
            waiting.writeQueued = false
            defer { waiting.lines = [] }
            return waiting.lines
        }
    }
}
