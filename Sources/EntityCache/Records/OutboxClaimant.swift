import Foundation

/// Who sends a cache's queued writes: each opened cache is one (``CacheDatabase/claimant``), so that two browsers
/// on one cache file never both send a write (``CacheWriter/dueOutboxEntries(at:limit:claimant:lease:)``).
///
/// Its id names the process (`pid:nonce`), so that the claims of a process that has ended can be let go at once.
public struct OutboxClaimant: Sendable, Hashable {
    public let id: String

    public init() {
        id = "\(getpid()):\(UUID().uuidString.lowercased())"
    }

    /// The one used where no cache names its own (tests writing the outbox directly).
    public static let thisProcess = OutboxClaimant()

    /// Whether the process that made the claimant `id` still runs (an id that names no process is taken as alive:
    /// its claim runs out with its lease).
    static func isAlive(_ id: String) -> Bool {
        guard let pid = id.split(separator: ":").first.flatMap({ pid_t($0) }), pid > 0 else { return true }
        if pid == getpid() { return true }
        return kill(pid, 0) == 0 || errno == EPERM
    }
}
