import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import ODataCore

/// Talks to an authorization server: token requests (RFC 6749) and OpenID discovery.
///
/// The client authenticates with HTTP Basic (`client_secret_basic`, which RFC 6749 §2.3.1 requires every server
/// to take); a public client sends its id in the form. Answers are bounded (64 KiB, 30 s), redirects are not
/// followed, and nothing of a request (secret, refresh token) is in any error.
public final class TokenEndpoint: Sendable {
    /// The largest answer read from an authorization server.
    static let maxBodyBytes = 64 << 10

    let client: HTTPClient
    let timeout: TimeInterval

    public init(timeout: TimeInterval = 10, tls: TLSConfiguration? = nil) {
        self.timeout = timeout
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: HTTPClientTransport.amount(timeout), read: HTTPClientTransport.amount(timeout)),
            decompression: .enabled(limit: .size(Self.maxBodyBytes))
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        if let tls { configuration.tlsConfiguration = tls }
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    deinit {
        client.shutdown(queue: .global()) { _ in }
    }

    /// Asks for a token with `form` (its `grant_type` and what that grant needs), with the settings' scope unless
    /// not `withScope` (a device code or a refresh token carries the scope it was given).
    public func token(
        _ settings: SignInSettings, form: [(String, String)], now: @Sendable () -> Date = Date.init,
        withScope: Bool = true
    ) async throws(SignInError) -> IssuedToken {
        let (headers, fields) = Self.clientAuthentication(settings, form: form)
        let started = now()
        let (status, type, bytes) = try await exchange(
            url: settings.tokenURL, method: .POST, headers: headers,
            body: Self.formBody(fields, scope: withScope ? settings.scope : nil))
        return try TokenAnswer.read(status: status, contentType: type, body: bytes, now: started).get()
    }

    /// What an OpenID provider's discovery document names.
    public struct Discovered: Sendable, Hashable {
        public var tokenURL: String
        public var deviceURL: String?
        public var authorizeURL: String?
    }

    /// The endpoints an OpenID provider names at `issuer/.well-known/openid-configuration`; each must be on the
    /// issuer's own origin (a document that sends tokens elsewhere is refused).
    public func discover(issuer: String) async throws(SignInError) -> Discovered {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        var headers = HTTPHeaders()
        headers.add(name: "Accept", value: "application/json")
        let (status, _, body) = try await exchange(
            url: base + "/.well-known/openid-configuration", method: .GET, headers: headers, body: nil)
        guard (200..<300).contains(status) else {
            throw SignInError("the issuer's discovery document answered \(status)", isFinal: false)
        }
        guard let json = try? JSONReader().read(body), case .string(let token)? = json["token_endpoint"] else {
            throw SignInError("the issuer's discovery document names no token_endpoint", isFinal: true)
        }
        var device: String?
        if case .string(let named)? = json["device_authorization_endpoint"] { device = named }
        var authorize: String?
        if case .string(let named)? = json["authorization_endpoint"] { authorize = named }
        let origin = URL(string: base).flatMap(HTTPClientTransport.Origin.init)
        // (the authorization endpoint is opened in a web browser, not sent credentials: it may be elsewhere, but
        // must be http(s))
        if let authorize, URL(string: authorize).flatMap(HTTPClientTransport.Origin.init) == nil {
            throw SignInError(
                "the issuer's discovery document names an authorization endpoint that is not http(s)", isFinal: true)
        }
        for endpoint in [token] + (device.map { [$0] } ?? []) {
            guard let url = URL(string: endpoint), let found = HTTPClientTransport.Origin(url), found == origin else {
                throw SignInError(
                    "the issuer's discovery document sends tokens to \(TokenAnswer.quote(endpoint)), not to the "
                        + "issuer's own origin; refused", isFinal: true)
            }
        }
        return Discovered(tokenURL: token, deviceURL: device, authorizeURL: authorize)
    }

    /// Starts the device grant (RFC 8628 §3.1): the code for the user to enter, and where.
    public func deviceAuthorization(
        _ settings: SignInSettings, now: @Sendable () -> Date = Date.init
    ) async throws(SignInError) -> DevicePrompt {
        guard let deviceURL = settings.deviceURL else {
            throw SignInError("no device authorization endpoint is known", isFinal: true)
        }
        let (headers, fields) = Self.clientAuthentication(settings, form: [])
        let started = now()
        let (status, type, bytes) = try await exchange(
            url: deviceURL, method: .POST, headers: headers, body: Self.formBody(fields, scope: settings.scope))
        return try DevicePrompt.read(status: status, contentType: type, body: bytes, now: started).get()
    }

    /// Polls for the device grant's token (RFC 8628 §3.4–3.5) at the interval the server gave, five seconds longer
    /// after each `slow_down`, until the user approves (the token), denies (`access_denied`) or the code expires.
    /// A poll that gets no answer is tried again at the next interval.
    public func pollDevice(
        _ settings: SignInSettings, _ prompt: DevicePrompt, now: @escaping @Sendable () -> Date = Date.init,
        sleep: @Sendable (Double) async throws -> Void = { try await Task.sleep(for: .seconds($0)) }
    ) async throws(SignInError) -> IssuedToken {
        var interval = prompt.interval
        while true {
            do { try await sleep(interval) } catch { throw SignInError("the sign-in was cancelled", isFinal: true) }
            guard now() < prompt.expiresAt else {
                throw SignInError(
                    "the code \(prompt.userCode) expired before it was entered; sign in again", isFinal: true,
                    code: "expired_token")
            }
            do {
                return try await token(
                    settings,
                    form: [
                        ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                        ("device_code", prompt.deviceCode),
                    ],
                    now: now, withScope: false)
            } catch {
                switch error.code {
                case "authorization_pending"?: continue
                case "slow_down"?: interval += 5
                case "access_denied"?:
                    throw SignInError(
                        "the sign-in was refused at \(prompt.verificationURI)", isFinal: true, code: error.code)
                case "expired_token"?:
                    throw SignInError(
                        "the code \(prompt.userCode) expired before it was entered; sign in again", isFinal: true,
                        code: error.code)
                default:
                    if error.isFinal { throw error }
                }
            }
        }
    }

    /// The client's authentication: HTTP Basic with its secret, else its id in the form (a public client).
    static func clientAuthentication(
        _ settings: SignInSettings, form: [(String, String)]
    ) -> (HTTPHeaders, [(String, String)]) {
        var fields = form
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        headers.add(name: "Accept", value: "application/json")
        if let secret = settings.clientSecret, !secret.isEmpty {
            let pair = formEncode(settings.clientID) + ":" + formEncode(secret)
            headers.add(name: "Authorization", value: "Basic " + Data(pair.utf8).base64EncodedString())
        } else {
            fields.append(("client_id", settings.clientID))
        }
        return (headers, fields)
    }

    static func formBody(_ fields: [(String, String)], scope: String?) -> [UInt8] {
        var fields = fields
        if let scope, !scope.isEmpty { fields.append(("scope", scope)) }
        return Array(fields.map { formEncode($0.0) + "=" + formEncode($0.1) }.joined(separator: "&").utf8)
    }

    func exchange(
        url: String, method: HTTPMethod, headers: HTTPHeaders, body: [UInt8]?
    ) async throws(SignInError) -> (Int, String?, [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers = headers
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let deadline = NIODeadline.now() + HTTPClientTransport.amount(timeout * 3)
        do {
            let answer = try await client.execute(request, deadline: deadline)
            if let length = answer.headers.first(name: "Content-Length").flatMap(Int.init), length > Self.maxBodyBytes {
                throw SignInError("the authorization server's answer is larger than 64 KiB; refused", isFinal: false)
            }
            var bytes: [UInt8] = []
            for try await chunk in answer.body {
                guard bytes.count + chunk.readableBytes <= Self.maxBodyBytes else {
                    throw SignInError(
                        "the authorization server's answer is larger than 64 KiB; refused", isFinal: false)
                }
                bytes.append(contentsOf: chunk.readableBytesView)
            }
            return (Int(answer.status.code), answer.headers.first(name: "Content-Type"), bytes)
        } catch let error as SignInError {
            throw error
        } catch {
            let reason =
                HTTPClientTransport.isTimeout(error)
                ? "no answer within \(HTTPClientTransport.seconds(timeout * 3))"
                : HTTPClientTransport.sentence(for: error, maxBodyBytes: Self.maxBodyBytes)
            throw SignInError("the authorization server could not be reached: \(reason)", isFinal: false)
        }
    }

    /// `application/x-www-form-urlencoded` as RFC 6749 Appendix B has it (space as `+`).
    static func formEncode(_ text: String) -> String {
        let allowed = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._*")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "").replacingOccurrences(
            of: "%20", with: "+")
    }
}
