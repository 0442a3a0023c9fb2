import EntityCache
import Foundation
import ODataCore
import Sync

extension SyncEngine {
    /// An engine for a test, made one way: an in-memory cache unless `cache` is given, a ``ManualClock`` that
    /// advances itself to each wait unless `clock` is given (a test against a real server passes `SystemClock()`),
    /// jitter fixed at the middle of its range, and `configure` for what the test changes.
    public static func forTesting(
        root: String, transport: any ODataTransport, model: ServiceModel?, cache: CacheDatabase? = nil,
        clock: any SyncClock = ManualClock(autoAdvance: true),
        configure: (inout Configuration) -> Void = { _ in }
    ) throws -> SyncEngine {
        var configuration = Configuration(serviceRoot: root)
        configure(&configuration)
        return SyncEngine(
            configuration: configuration, cache: try cache ?? CacheDatabase(), transport: transport, model: model,
            clock: clock, random: { 0.5 })
    }
}

extension RetryPolicy {
    /// Writes retried at once and for ever: a test that sees a write fail and then go waits hundredths of a second.
    public static let quickWrites = RetryPolicy(maxAttempts: .max, baseDelay: 0.01, maxDelay: 0.05, budget: .infinity)
}
