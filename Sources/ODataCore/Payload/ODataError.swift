/// Anything that went wrong speaking OData, with the context to act on it.
///
/// Its ``description`` is one sentence for the status line: what happened,
/// where, and what the server said.
public struct ODataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Kind: String, Sendable, Hashable {
        /// The body is not the OData JSON it should be.
        case malformedPayload
        /// The service answered with an OData error (or an HTTP error status).
        case service
        /// The request never got an answer: connection refused, dropped, timed out.
        case transport
        /// `$metadata` could not be read.
        case metadata
        /// The server answered, but in a way this client will not accept: past a limit (bytes, entities),
        /// not valid HTTP, undecodable compression, a link to another origin or not to the web. Asking again
        /// would get the same, so it is not retried until the user asks, and it is not called "offline".
        case refused
    }

    public var kind: Kind
    /// The request's URL, when known.
    public var url: String?
    /// The HTTP status, when there was a response.
    public var status: Int?
    /// The OData error code (`ResourceNotFound`, `SY/530`), when the server sent one.
    public var code: String?
    /// The server's message, or what is wrong with the payload.
    public var message: String
    /// A transport failure before any of the request could reach the server (no connection was made): a write
    /// that failed so was certainly not applied.
    public var neverSent = false
    /// A `transport` failure because no token could be had to send the request with (OAuth 2.0): said as a sign-in
    /// that failed, not as a service out of reach.
    public var isSignIn = false

    public init(kind: Kind, message: String, url: String? = nil, status: Int? = nil, code: String? = nil) {
        self.kind = kind
        self.message = message
        self.url = url
        self.status = status
        self.code = code
    }

    /// The reason comes before the URL, so that a status line cut at its width keeps what matters.
    public var description: String {
        let place = url.map { " (\(Self.shorten($0)))" } ?? ""
        switch kind {
        case .malformedPayload:
            return "The server's answer is not valid OData JSON: \(message)\(place)"
        case .metadata:
            return "The service's $metadata could not be read: \(message)\(place)"
        case .transport where isSignIn:
            return "Not signed in: \(message)\(place)"
        case .transport:
            return "Could not reach the service: \(message)\(place)"
        case .refused:
            return "Refused: \(message)\(place)"
        case .service:
            var text = "The service answered"
            if let status { text += " HTTP \(status)" }
            if let code, !code.isEmpty { text += " [\(code)]" }
            return text + ": " + message + place
        }
    }

    /// Long URLs are cut in the middle so the sentence fits a status line.
    static func shorten(_ url: String) -> String {
        guard url.count > 120 else { return url }
        return String(url.prefix(70)) + "…" + String(url.suffix(40))
    }
}
