import Synchronization

/// Optional latency and failures, for demos and tests of a client's patience (`--latency`, `--fail-rate`).
final class FaultInjector: Sendable {
    let latencyMilliseconds: Int
    let jitterMilliseconds: Int
    let failRate: Double
    /// Deterministic draws; the mutex protects the generator state shared by concurrent requests.
    private let random = Mutex(SeededRandom(seed: 0xFA17))

    init(latencyMilliseconds: Int, jitterMilliseconds: Int, failRate: Double) {
        self.latencyMilliseconds = max(0, latencyMilliseconds)
        self.jitterMilliseconds = max(0, jitterMilliseconds)
        self.failRate = min(1, max(0, failRate))
    }

    /// Sleeps for the configured latency, then throws a 503 with probability ``failRate``. A write's share of
    /// failures is split: half are refused with that 503 before anything changes, half are carried out and their
    /// answer is lost (true: the caller drops the connection instead of answering), as when a connection breaks
    /// after the service committed.
    func apply(isWrite: Bool = false) async throws -> Bool {
        guard latencyMilliseconds > 0 || jitterMilliseconds > 0 || failRate > 0 else { return false }
        let (jitter, roll) = random.withLock { generator in
            (generator.int(0...jitterMilliseconds), Double.random(in: 0..<1, using: &generator))
        }
        let delay = latencyMilliseconds + jitter
        if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
        if isWrite, roll >= failRate / 2, roll < failRate { return true }
        if roll < (isWrite ? failRate / 2 : failRate) {
            throw ServiceError(
                status: 503, code: "InjectedFault", message: "Injected failure (--fail-rate \(failRate)); try again."
            )
        }
        return false
    }
}
