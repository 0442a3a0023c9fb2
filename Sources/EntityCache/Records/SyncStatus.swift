import Foundation

/// The fetcher's state for the status line; published by Sync, observed by screens, held in memory (``StatusBoard``).
public struct SyncStatus: Sendable, Hashable {
    /// False after the service could not be reached, until a request succeeds again.
    public var isOnline: Bool
    /// Requests on the wire now.
    public var inFlight: Int
    /// Fetches waiting for a slot.
    public var queued: Int
    /// The last failure as a sentence a person can act on.
    public var lastError: String?
    public var lastErrorAt: Date?
    /// When a request last succeeded (fetched or 304): the age of the data when offline.
    public var lastSuccessAt: Date?
    /// A request that has been waiting for its answer for a few seconds, in words (`waiting 4 s for Person…`).
    public var slowRequest: String?

    public init(
        isOnline: Bool = true, inFlight: Int = 0, queued: Int = 0, lastError: String? = nil,
        lastErrorAt: Date? = nil, lastSuccessAt: Date? = nil, slowRequest: String? = nil
    ) {
        self.slowRequest = slowRequest
        self.isOnline = isOnline
        self.inFlight = inFlight
        self.queued = queued
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.lastSuccessAt = lastSuccessAt
    }
}
