/// One GET the fetcher sends.
public struct TransportRequest: Sendable, Hashable {
    public var url: String
    /// Extra headers (`If-None-Match`); the transport adds `Accept`, versions and auth itself.
    public var headers: [String: String]
    /// `$metadata` is XML; everything else JSON.
    public var acceptsXML: Bool
    /// Seconds the whole exchange may take (redirects included), when shorter than the transport's own bound:
    /// the fetcher passes what is left of a job's budget.
    public var timeout: Double?

    public init(url: String, headers: [String: String] = [:], acceptsXML: Bool = false, timeout: Double? = nil) {
        self.url = url
        self.headers = headers
        self.acceptsXML = acceptsXML
        self.timeout = timeout
    }
}

/// What came back: any HTTP status (errors included) with headers and body.
public struct TransportResponse: Sendable, Hashable {
    public var status: Int
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var etag: String? { headers["etag"] }
}

/// The HTTP seam. Implementations return every HTTP answer as a response (even 500)
/// and throw only when there was none: an `ODataError` of kind `.transport` (no answer: worth
/// asking again later), of kind `.refused` (an answer or a URL this client will not accept: asking
/// again gets the same), or `CancellationError` when the calling task was cancelled.
public protocol ODataTransport: Sendable {
    func get(_ request: TransportRequest) async throws -> TransportResponse
}
