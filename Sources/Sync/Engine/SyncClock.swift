import Foundation

/// Time for the fetcher: what time it is, and waiting (backoff, offline probes).
/// Injected so tests control both without sleeping.
public protocol SyncClock: Sendable {
    func now() -> Date
    /// Waits `seconds`; throws `CancellationError` when the task is cancelled.
    func sleep(seconds: Double) async throws
}

/// The real clock.
public struct SystemClock: SyncClock {
    public init() {}

    public func now() -> Date { Date() }

    public func sleep(seconds: Double) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }
}
