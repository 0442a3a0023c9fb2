/// An HTTP method the client sends. Reads use `GET`; writes the others (`MERGE` is OData v2's partial update,
/// which servers that predate `PATCH` expect).
public enum RequestMethod: String, Sendable, Hashable, CaseIterable {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case merge = "MERGE"
    case delete = "DELETE"
    /// Only the headers of what a GET answers (a stream's length).
    case head = "HEAD"

    /// Safe to send again when the connection was lost before any answer: it changes nothing on the server.
    public var isSafe: Bool { self == .get || self == .head }
}

/// One request the client sends: any method, extra headers and a body.
public struct TransportRequest: Sendable, Hashable {
    public var method: RequestMethod
    public var url: String
    /// Extra headers (`If-None-Match`, `If-Match`, `Content-Type`); the transport adds `Accept`, versions and auth itself.
    public var headers: [String: String]
    /// The body to send (a write's JSON); nil for none.
    public var body: [UInt8]?
    /// `$metadata` is XML; everything else JSON.
    public var acceptsXML: Bool
    /// The protocol the service speaks, for the version headers and the JSON flavour asked for; nil before its
    /// `$metadata` says (that request carries both dialects' version headers).
    public var dialect: ODataDialect?
    /// Seconds the whole exchange may take (redirects included), when shorter than the transport's own bound:
    /// the fetcher passes what is left of a job's budget.
    public var timeout: Double?

    public init(
        method: RequestMethod = .get, url: String, headers: [String: String] = [:], body: [UInt8]? = nil,
        acceptsXML: Bool = false, timeout: Double? = nil, dialect: ODataDialect? = nil
    ) {
        self.dialect = dialect
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
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

/// The HTTP seam, seen by both the fetcher (Sync) and the implementation (ODataHTTP) without either
/// depending on NIO. Implementations return every HTTP answer as a response (even 500) and throw only when
/// there was none: an `ODataError` of kind `.transport` (no answer: worth asking again later), of kind
/// `.refused` (an answer or a URL this client will not accept: asking again gets the same), or
/// `CancellationError` when the calling task was cancelled.
public protocol ODataTransport: Sendable {
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// Sends a GET whose 2xx body goes to `sink` as it arrives, never held whole (a media stream saved to a file);
    /// the response returned then has an empty body. Any other answer comes back whole, as ``send(_:)`` returns it.
    /// The body is bounded as an answer is; past the bound, or when `sink` throws, the exchange ends with that
    /// error.
    func download(_ request: TransportRequest, into sink: DownloadSink) async throws -> TransportResponse
}

/// Where a download's body goes: told the length the answer announces (nil when it announces none), then given the
/// bytes piece by piece.
public struct DownloadSink: Sendable {
    public var started: @Sendable (_ expectedBytes: Int?) throws -> Void
    public var received: @Sendable (_ bytes: [UInt8]) throws -> Void

    public init(
        started: @escaping @Sendable (_ expectedBytes: Int?) throws -> Void,
        received: @escaping @Sendable (_ bytes: [UInt8]) throws -> Void
    ) {
        self.started = started
        self.received = received
    }
}

extension ODataTransport {
    /// A transport that cannot stream hands the whole body over at once.
    public func download(_ request: TransportRequest, into sink: DownloadSink) async throws -> TransportResponse {
        var response = try await send(request)
        guard (200..<300).contains(response.status) else { return response }
        try sink.started(response.body.count)
        try sink.received(response.body)
        response.body = []
        return response
    }
}
