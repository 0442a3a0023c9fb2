import Foundation

/// One request the fetcher made (or merged, or dropped), for the inspector screen.
public struct RequestLogEntry: Sendable, Hashable {
    /// How a request ended.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// A 2xx whose body was written to the cache.
        case fetched
        /// A write (MERGE, POST, PUT, DELETE) the service accepted.
        case written
        /// A 304: the cached rows were confirmed, only fetched-at changed.
        case notModified = "304"
        /// Failed after its retries (or a non-retryable error).
        case failed
        /// Dropped because no screen wanted it any more.
        case cancelled
        /// Merged into an identical request already queued or in flight: no request was sent.
        case coalesced
        /// A stream written to a file (`:save`).
        case saved
    }

    /// Assigned by the cache, increasing.
    public var id: Int64
    public var url: String
    public var status: Int?
    public var bytes: Int
    /// Seconds from first attempt to outcome.
    public var duration: Double
    public var outcome: Outcome
    public var startedAt: Date
    /// Attempts made (retries included); 0 for coalesced or cancelled before sending.
    public var attempts: Int
    public var error: String?
    /// `GET` (the only method the fetcher sends yet).
    public var method: String
    /// The headers of the last attempt, a `name: value` line each: the request's own (`If-None-Match`) marked
    /// `>`, the response's marked `<`. Never credentials, cookies or tokens.
    public var headers: String?

    public init(
        id: Int64 = 0, url: String, status: Int?, bytes: Int, duration: Double, outcome: Outcome, startedAt: Date,
        attempts: Int, error: String? = nil, method: String = "GET", headers: String? = nil
    ) {
        self.method = method
        self.headers = headers
        self.id = id
        self.url = url
        self.status = status
        self.bytes = bytes
        self.duration = duration
        self.outcome = outcome
        self.startedAt = startedAt
        self.attempts = attempts
        self.error = error
    }
}
