/// Capped exponential backoff with jitter for idempotent GETs.
///
/// Attempt `n` (1-based) that failed waits `min(cap, base · 2^(n-1))` scaled by a
/// jitter factor in `[1 - jitter, 1]` drawn from the injected random source
/// ("equal jitter" when `jitter` is 0.5), so clients that failed together do not
/// retry together. Retried: no answer at all, 408, 429, 500, 502, 503, 504.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts including the first.
    public var maxAttempts: Int
    public var baseDelay: Double
    public var maxDelay: Double
    /// Fraction of the delay that is random, 0…1.
    public var jitter: Double
    /// Seconds one fetch may take in all, its attempts and the waits between them included: no attempt
    /// starts, and no wait begins, that would end past it, and each attempt gets only what is left.
    public var budget: Double

    public init(
        maxAttempts: Int = 5, baseDelay: Double = 0.2, maxDelay: Double = 5, jitter: Double = 0.5, budget: Double = 45
    ) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.budget = budget
    }

    /// The wait after failed attempt `attempt` (1-based), given a random number in `[0, 1)`.
    public func delay(afterAttempt attempt: Int, random: Double) -> Double {
        let exponential = baseDelay * Double(1 << min(max(attempt - 1, 0), 30))
        let capped = min(maxDelay, exponential)
        return capped * (1 - jitter * min(max(random, 0), 1))
    }

    /// Whether an HTTP status is worth retrying.
    public static func isRetryable(status: Int) -> Bool {
        [408, 429, 500, 502, 503, 504].contains(status)
    }
}
