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
    /// The stream being saved to a file (`:save`), or the last one saved, until another starts.
    public var download: DownloadProgress?

    public init(
        isOnline: Bool = true, inFlight: Int = 0, queued: Int = 0, lastError: String? = nil,
        lastErrorAt: Date? = nil, lastSuccessAt: Date? = nil, slowRequest: String? = nil,
        download: DownloadProgress? = nil
    ) {
        self.download = download
        self.slowRequest = slowRequest
        self.isOnline = isOnline
        self.inFlight = inFlight
        self.queued = queued
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.lastSuccessAt = lastSuccessAt
    }
}

/// A stream being saved to a file, or how its saving ended.
public struct DownloadProgress: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        case running
        case saved
        /// Why not, as a sentence; nothing was left of the file.
        case failed(String)
        case cancelled
    }

    /// Increasing with each download this process starts.
    public var id: Int
    /// The stream, in words (`Photo(2)`, `Photo(2) picture`).
    public var subject: String
    /// The file as the user named it.
    public var path: String
    public var received: Int
    /// The length the answer announced.
    public var expected: Int?
    public var contentType: String?
    public var state: State
    /// Whether the file goes to the service (`:upload`): `received` is then what was sent, and `.saved` means the
    /// service took it.
    public var isUpload: Bool

    public init(
        id: Int, subject: String, path: String, received: Int = 0, expected: Int? = nil, contentType: String? = nil,
        state: State = .running, isUpload: Bool = false
    ) {
        self.id = id
        self.subject = subject
        self.path = path
        self.received = received
        self.expected = expected
        self.contentType = contentType
        self.state = state
        self.isUpload = isUpload
    }
}
