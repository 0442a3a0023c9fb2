import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import ODataCore
import Synchronization

/// The live transport: swift-server's AsyncHTTPClient on SwiftNIO, one connection pool per transport.
///
/// Sends `Accept: application/json` (`application/xml` for `$metadata`) and the version headers of the request's
/// dialect (``protocolHeaders(_:)``), `Accept-Encoding: gzip, deflate`, the request's own headers (`If-None-Match`)
/// and the credentials' `Authorization`, which is never logged and never put in an error. Every HTTP status
/// comes back as a ``TransportResponse`` (header names lower-cased, as the server sent them otherwise); only a
/// missing answer throws, as ``ODataTransport`` says.
///
/// * **Why not URLSession**: on Linux, swift-corelibs-foundation aborts the whole process ("Transfer completed,
///   but there's no response", swiftlang/swift-corelibs-foundation#5285) when the server cleanly closes a
///   kept-alive connection that was reused before an answer arrived. Here that is an ordinary failure, and since
///   a GET is safe, a GET whose connection closed or reset before any answer is sent once more, on another
///   pooled connection or a new one, before it fails. Writes are sent once; their caller decides about retries.
/// * **One origin**: a transport made for a service root
///   (``init(serviceRoot:environment:timeout:requestTimeout:credentials:tokens:headers:parameters:tls:maxBodyBytes:counter:)``)
///   sends requests only to that root's origin (scheme, host and port), however their URL was learned — a
///   `__next`, `__deferred` or `__metadata.uri` link, a `Location` — so credentials, cookies and tokens never
///   go to another host. A URL elsewhere is refused (``ODataError/Kind/refused``) before any connection.
/// * **Redirects**: followed for GETs only within the same origin, at most ``maxRedirects`` times. A redirect
///   anywhere else, or of a write, comes back as the 3xx response itself.
/// * **Limits**: `timeout` bounds connecting and each wait for the next bytes; `requestTimeout` the whole
///   exchange (a server that trickles a byte at a time still ends there). A body larger than `maxBodyBytes`
///   once decompressed is refused, read no further. Answers that break a limit or HTTP itself (too large,
///   not valid HTTP, undecodable compression) are ``ODataError/Kind/refused``: asking again gets the same.
/// * **Cookies**: what the service sets is sent back to it (``CookieJar``), in memory only, so a gateway that keeps
///   a session in a cookie keeps one session. `Set-Cookie` is not passed on in the response's headers.
/// * **Failing fast**: an unreachable server fails the request at once (no reconnect loop inside the client):
///   the fetcher has its own retry with backoff and its own offline state.
/// * **Proxy**: one per transport, as a transport serves one service: the initializer that takes a service root
///   picks it from the proxy environment variables (``ProxySettings``). AsyncHTTPClient sends every request through
///   it in a `CONNECT` tunnel, http ones included, with the proxy's credentials on the `CONNECT` only; failures to
///   reach it or to open the tunnel name it, never its credentials.
/// * **Lifecycle**: the `HTTPClient` runs on NIO's process-wide event loops and is shut down, without
///   blocking, when the transport is released (AsyncHTTPClient traps in debug builds on a client released
///   while running); a process that ends with `exit()` needs nothing.
public final class HTTPClientTransport: ODataTransport {
    /// 32 MiB: far above any OData page the fetcher asks for (50 rows with one level expanded is a few hundred
    /// KiB) and above the `$metadata` of large ERP services (a few MiB), far below what would exhaust memory.
    public static let defaultMaxBodyBytes = 32 << 20
    /// Seconds to connect, and to wait for the next bytes of an answer.
    public static let defaultTimeout: TimeInterval = 10
    /// Seconds one whole exchange may take.
    public static let defaultRequestTimeout: TimeInterval = 30
    /// Same-origin redirects followed before the 3xx itself is returned.
    public static let maxRedirects = 5

    let client: HTTPClient
    let authorization: String?
    /// Where bearer tokens come from when the service is signed in to with OAuth (in place of `authorization`).
    public let tokens: TokenSource?
    /// Headers every request carries (`--header`: an API key), after the protocol's and before the request's own;
    /// like the credentials, never in a request log line or an error.
    let serviceHeaders: [(name: String, value: String)]
    /// Query parameters every request's URL carries unless it has them already (`sap-client`, `sap-language`).
    let serviceParameters: [(name: String, value: String)]
    let timeout: TimeInterval
    let requestTimeout: TimeInterval
    let maxBodyBytes: Int
    /// The only origin requests go to; nil (tests of the transport alone) for any.
    let serviceOrigin: Origin?
    /// What every request goes through; nil for none.
    public let proxy: ProxyServer?
    /// The service's cookies.
    let cookies = CookieJar()
    /// Where body bytes are counted as they arrive; nil for nowhere.
    let counter: TransferCounter?
    /// The service root (where a CSRF token is fetched); nil for a transport made for any URL. A URL that named an
    /// entity set is put right once `$metadata` showed the root (``serviceRootFound(_:)``).
    var serviceRoot: String? { root.withLock { $0 } }
    let root: Mutex<String?>
    /// The CSRF token writes carry, once asked for (SAP Gateway's protection; never logged or stored).
    let csrf = Mutex(CSRFState())

    struct CSRFState {
        var token: String?
        /// Whether the service was asked; a service that sends no token gets none.
        var asked = false
    }

    /// - Parameters:
    ///   - serviceOrigin: the service root whose origin alone requests may go to; nil for any (tests only).
    ///   - timeout: seconds allowed to connect and to wait for the next bytes.
    ///   - requestTimeout: seconds allowed for a whole exchange; three times `timeout` when nil.
    ///   - credentials: what to authenticate with (``Credentials/load(environment:)``: environment or private file).
    ///   - maxBodyBytes: the largest body accepted, counted after decompression.
    ///   - proxy: the HTTP proxy every request goes through; none by default.
    ///   - counter: counts body bytes as they arrive; none by default.
    public init(
        serviceOrigin: String? = nil, timeout: TimeInterval = defaultTimeout, requestTimeout: TimeInterval? = nil,
        credentials: Credentials = Credentials(), tokens: TokenSource? = nil,
        headers: [(name: String, value: String)] = [], parameters: [(name: String, value: String)] = [],
        tls: TLSConfiguration? = nil, maxBodyBytes: Int = defaultMaxBodyBytes, proxy: ProxyServer? = nil,
        counter: TransferCounter? = nil
    ) {
        self.tokens = tokens
        serviceHeaders = headers
        serviceParameters = parameters
        self.counter = counter
        self.timeout = timeout
        self.requestTimeout = requestTimeout ?? timeout * 3
        self.maxBodyBytes = maxBodyBytes
        self.proxy = proxy
        self.serviceOrigin = serviceOrigin.flatMap(URL.init(string:)).flatMap(Origin.init)
        root = Mutex(serviceOrigin)
        authorization = credentials.authorization
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,  // followed in `exchangeFollowingRedirects`, within the origin only
            timeout: .init(connect: Self.amount(timeout), read: Self.amount(timeout)),
            proxy: proxy?.clientProxy,
            decompression: .enabled(limit: .size(maxBodyBytes))
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        if let tls { configuration.tlsConfiguration = tls }
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// A transport for the service at `serviceRoot`, through the proxy `environment` gives for it (``ProxySettings``:
    /// `http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`; none for loopback hosts).
    ///
    /// Redirects are followed only within the service's origin, so that one proxy (or none) serves every request.
    /// Throws ``ProxySettings/ConfigurationError`` when the variable that applies names a proxy that cannot be used.
    public convenience init(
        serviceRoot: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        timeout: TimeInterval = defaultTimeout, requestTimeout: TimeInterval? = nil,
        credentials: Credentials = Credentials(), tokens: TokenSource? = nil,
        headers: [(name: String, value: String)] = [], parameters: [(name: String, value: String)] = [],
        tls: TLSConfiguration? = nil, maxBodyBytes: Int = defaultMaxBodyBytes, counter: TransferCounter? = nil
    ) throws(ProxySettings.ConfigurationError) {
        var proxy: ProxyServer?
        if let url = Self.webURL(serviceRoot) { proxy = try ProxySettings(environment: environment).proxy(for: url) }
        self.init(
            serviceOrigin: serviceRoot, timeout: timeout, requestTimeout: requestTimeout, credentials: credentials,
            tokens: tokens, headers: headers, parameters: parameters, tls: tls, maxBodyBytes: maxBodyBytes,
            proxy: proxy,
            counter: counter
        )
    }

    deinit {
        // The shutdown keeps the client alive until it has finished, so the client never deinits running.
        client.shutdown(queue: .global()) { _ in }
    }

    /// Sends `request`. A write (any method but GET) carries the service's CSRF token: asked for once, with
    /// `X-CSRF-Token: Fetch` on a GET of the service root, before the first write; asked for again, and the write
    /// sent once more, when the service answers `403` with `X-CSRF-Token: Required` (the token expired with its
    /// session). The token never leaves the transport: it is in no response header a caller sees.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard !request.method.isSafe else { return Self.withoutToken(try await exchangeFollowingRedirects(request)) }
        var request = request
        if let token = try await csrfToken(fresh: false, dialect: request.dialect) {
            request.headers["X-CSRF-Token"] = token
        }
        let response = try await exchangeFollowingRedirects(request)
        guard response.status == 403, response.headers["x-csrf-token"]?.lowercased() == "required",
            let token = try await csrfToken(fresh: true, dialect: request.dialect)
        else { return Self.withoutToken(response) }
        request.headers["X-CSRF-Token"] = token
        return Self.withoutToken(try await exchangeFollowingRedirects(request))
    }

    /// The response without a token value in `X-CSRF-Token` (`Required` stays: it says what happened).
    static func withoutToken(_ response: TransportResponse) -> TransportResponse {
        guard let value = response.headers["x-csrf-token"], value.lowercased() != "required" else { return response }
        var response = response
        response.headers["x-csrf-token"] = nil
        return response
    }

    /// The service root the session found (the parent of a URL that named one of its entity sets): the CSRF token
    /// is fetched there, not by reading that set whole. Kept only on the transport's origin.
    public func serviceRootFound(_ found: String) {
        guard let origin = serviceOrigin, URL(string: found).flatMap(Origin.init) == origin else { return }
        root.withLock { $0 = found }
    }

    /// The CSRF token for writes: the one asked for before unless `fresh`; nil when the service sends none.
    func csrfToken(fresh: Bool, dialect: ODataDialect? = nil) async throws -> String? {
        if !fresh, let known = csrf.withLock({ $0.asked ? $0 : nil }) { return known.token }
        guard let serviceRoot else { return nil }
        let answer = try await exchangeFollowingRedirects(
            TransportRequest(url: serviceRoot, headers: ["X-CSRF-Token": "Fetch"], dialect: dialect))
        let sent = answer.headers["x-csrf-token"].flatMap { (200..<300).contains(answer.status) ? $0 : nil }
        let token = sent.flatMap { $0.lowercased() == "required" || $0.isEmpty ? nil : $0 }
        csrf.withLock { $0 = CSRFState(token: token, asked: true) }
        return token
    }

    /// A GET whose 2xx body goes to `sink` as it arrives (see ``ODataTransport/download(_:into:)``). Its whole
    /// exchange may take an hour: the wait for each next piece is bounded as any request's is, and the body by
    /// `maxBodyBytes`.
    public func download(_ request: TransportRequest, into sink: DownloadSink) async throws -> TransportResponse {
        var request = request
        request.method = .get
        request.body = nil
        return Self.withoutToken(
            try await exchangeFollowingRedirects(
                request, into: sink, seconds: max(requestTimeout, Self.longestDownload)))
    }

    /// Seconds a download may take in all.
    static let longestDownload: TimeInterval = 3600

    /// One request, following same-origin redirects of a GET.
    func exchangeFollowingRedirects(
        _ request: TransportRequest, into sink: DownloadSink? = nil, seconds whole: TimeInterval? = nil
    ) async throws -> TransportResponse {
        guard var url = Self.webURL(request.url) else {
            throw ODataError(kind: .refused, message: "the link is not an http or https URL", url: request.url)
        }
        if let serviceOrigin, let origin = Origin(url), origin != serviceOrigin {
            throw ODataError(
                kind: .refused,
                message: "the link leads to \(origin), not to the service at \(serviceOrigin); it was not followed",
                url: request.url
            )
        }
        let bound = whole ?? requestTimeout
        let seconds = min(bound, request.timeout ?? bound)
        let deadline = NIODeadline.now() + Self.amount(seconds)
        var redirects = 0
        while true {
            let response: TransportResponse
            do {
                response = try await exchange(request, url: url, deadline: deadline, into: sink)
            } catch {
                if Task.isCancelled { throw CancellationError() }
                if let signIn = error as? ODataError { throw signIn }
                if let sentence = proxy.flatMap({ Self.sentence(for: error, proxy: $0, target: url) }) {
                    throw failure(sentence, request)
                }
                let kind: ODataError.Kind = Self.isRefusal(error) ? .refused : .transport
                let sentence =
                    Self.isTimeout(error)
                    ? "the request timed out: no whole answer within \(Self.seconds(seconds))"
                    : Self.sentence(for: error, maxBodyBytes: maxBodyBytes)
                var thrown = ODataError(kind: kind, message: sentence, url: request.url)
                thrown.neverSent = Self.isConnectFailure(error)
                throw thrown
            }
            // A write is never sent again to another URL: its 3xx comes back as it is.
            guard request.method.isSafe, redirects < Self.maxRedirects,
                let target = Self.sameOriginRedirect(response, from: url)
            else {
                return response
            }
            redirects += 1
            url = target
        }
    }

    /// `Accept` and the version headers of the request's dialect: v2's `MaxDataServiceVersion`/`DataServiceVersion`,
    /// v4's `OData-MaxVersion`/`OData-Version` with `odata.metadata=minimal` JSON; before the dialect is known
    /// (`$metadata`), both sets, which each kind of server ignores the other's.
    static func protocolHeaders(_ request: TransportRequest) -> KeyValuePairs<String, String> {
        switch request.dialect {
        case .v4?:
            return [
                "Accept": request.acceptsXML ? "application/xml" : "application/json;odata.metadata=minimal",
                "OData-MaxVersion": "4.0", "OData-Version": "4.0",
            ]
        case .v2?:
            return [
                "Accept": request.acceptsXML ? "application/xml" : "application/json",
                "MaxDataServiceVersion": "2.0", "DataServiceVersion": "2.0",
            ]
        case nil:
            return [
                "Accept": request.acceptsXML ? "application/xml" : "application/json",
                "MaxDataServiceVersion": "2.0", "DataServiceVersion": "2.0", "OData-MaxVersion": "4.0",
            ]
        }
    }

    /// One request and its whole answer, signed in: with a token from ``tokens`` when there are any, renewed and
    /// the request sent once more when the service answers `401` (a `401` means it did nothing with the request,
    /// so a write is safe to resend); a second `401` comes back as it is. A token that cannot be had fails the
    /// request before it is sent (``ODataError/neverSent``), so a write waits in the outbox.
    func exchange(
        _ request: TransportRequest, url: URL, deadline: NIODeadline, into sink: DownloadSink? = nil
    ) async throws -> TransportResponse {
        guard let tokens else {
            return try await exchange(request, url: url, deadline: deadline, as: authorization, into: sink)
        }
        let sent = try await signedIn(request) { () async throws(SignInError) in try await tokens.authorization() }
        let response = try await exchange(request, url: url, deadline: deadline, as: sent, into: sink)
        guard response.status == 401 else { return response }
        let renewed = try await signedIn(request) { () async throws(SignInError) in
            try await tokens.renewed(after: sent)
        }
        return try await exchange(request, url: url, deadline: deadline, as: renewed, into: sink)
    }

    /// A token, or the request's failure: what went wrong, and `cardealer login` when only the user can mend it.
    func signedIn(
        _ request: TransportRequest, _ token: () async throws(SignInError) -> String
    ) async throws(ODataError) -> String {
        do {
            return try await token()
        } catch {
            var sentence = error.description
            if error.isFinal, let root = tokens?.settings.serviceRoot { sentence += "; run `cardealer login \(root)`" }
            var failure = ODataError(kind: .transport, message: sentence, url: request.url)
            failure.neverSent = true
            failure.isSignIn = true
            throw failure
        }
    }

    /// One request and its whole answer (a 2xx body to `sink` instead, when there is one); errors as the client
    /// threw them (see ``sentence(for:maxBodyBytes:)``).
    func exchange(
        _ request: TransportRequest, url: URL, deadline: NIODeadline, as authorization: String?,
        into sink: DownloadSink? = nil
    ) async throws -> TransportResponse {
        var outgoing = HTTPClientRequest(url: Self.adding(serviceParameters, to: url).absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for (name, value) in Self.protocolHeaders(request) { outgoing.headers.replaceOrAdd(name: name, value: value) }
        outgoing.headers.replaceOrAdd(name: "Accept-Encoding", value: "gzip, deflate")
        if let authorization { outgoing.headers.replaceOrAdd(name: "Authorization", value: authorization) }
        for (name, value) in serviceHeaders { outgoing.headers.replaceOrAdd(name: name, value: value) }
        for (name, value) in request.headers { outgoing.headers.replaceOrAdd(name: name, value: value) }
        if let cookie = cookies.header(for: url) { outgoing.headers.replaceOrAdd(name: "Cookie", value: cookie) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }

        let answer: HTTPClientResponse
        do {
            answer = try await client.execute(outgoing, deadline: deadline)
        } catch  where request.method.isSafe && Self.isLostBeforeAnswer(error) && !Task.isCancelled {
            // On a reused keep-alive connection this is a race with the server closing it (the shape that
            // aborts URLSession), not a failure of the service. A GET is safe to send again, once; a write is not
            // (the server may have done it), so its caller decides.
            answer = try await client.execute(outgoing, deadline: deadline)
        }

        cookies.store(answer.headers["Set-Cookie"], from: url)
        var headers: [String: String] = [:]
        for (name, value) in answer.headers {
            let key = name.lowercased()
            guard key != "set-cookie" else { continue }
            headers[key] = headers[key].map { $0 + ", " + value } ?? value
        }
        // (a HEAD's length is what a GET would send: nothing comes with it)
        if request.method != .head, let length = headers["content-length"].flatMap(Int.init), length > maxBodyBytes {
            throw Failure.bodyTooLarge
        }
        let status = Int(answer.status.code)
        let streams = sink != nil && (200..<300).contains(status)
        // (the length of an encoded answer is not what arrives: it is decoded on the way)
        if streams {
            try sink?.started(headers["content-encoding"] == nil ? headers["content-length"].flatMap(Int.init) : nil)
        }
        var body: [UInt8] = []
        var received = 0
        do {
            for try await chunk in answer.body {
                guard received + chunk.readableBytes <= maxBodyBytes else { throw Failure.bodyTooLarge }
                received += chunk.readableBytes
                if streams, let sink {
                    try sink.received(Array(chunk.readableBytesView))
                } else {
                    body.append(contentsOf: chunk.readableBytesView)
                }
                counter?.add(chunk.readableBytes)
                guard NIODeadline.now() < deadline else { throw HTTPClientError.deadlineExceeded }
            }
        } catch let error as HTTPClientError where error == .remoteConnectionClosed {
            throw Failure.cutShort
        }
        return TransportResponse(status: status, headers: headers, body: body)
    }

    /// Whether the connection closed or reset before any answer came: the request may not even have gone out.
    static func isLostBeforeAnswer(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPClientError: return error == .remoteConnectionClosed
        case let error as ChannelError: return error == .ioOnClosedChannel || error == .eof || error == .outputClosed
        case let error as IOError: return error.errnoCode == ECONNRESET || error.errnoCode == EPIPE
        default: return false
        }
    }

    /// What went wrong in this transport itself, beyond what the client reports.
    enum Failure: Error {
        /// The body passed `maxBodyBytes`.
        case bodyTooLarge
        /// The connection closed after the head, before the whole body.
        case cutShort
    }

    func failure(_ sentence: String, _ request: TransportRequest) -> ODataError {
        ODataError(kind: .transport, message: sentence, url: request.url)
    }

    static func amount(_ seconds: TimeInterval) -> TimeAmount {
        .nanoseconds(Int64(max(0.001, min(seconds, 86_400)) * 1_000_000_000))
    }
}
