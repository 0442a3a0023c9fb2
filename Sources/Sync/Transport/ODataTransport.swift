/// One GET the fetcher sends.
public struct TransportRequest: Sendable, Hashable {
    public var url: String
    /// Extra headers (`If-None-Match`); the transport adds `Accept`, versions and auth itself.
    public var headers: [String: String]
    /// `$metadata` is XML; everything else JSON.
    public var acceptsXML: Bool

    public init(url: String, headers: [String: String] = [:], acceptsXML: Bool = false) {
        self.url = url
        self.headers = headers
        self.acceptsXML = acceptsXML
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
/// and throw only when there was none: an `ODataError` of kind `.transport`, or
/// `CancellationError` when the calling task was cancelled.
public protocol ODataTransport: Sendable {
    func get(_ request: TransportRequest) async throws -> TransportResponse
}
