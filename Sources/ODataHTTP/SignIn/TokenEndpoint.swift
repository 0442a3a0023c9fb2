import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
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

    public init(timeout: TimeInterval = 10, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.timeout = timeout
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: HTTPClientTransport.amount(timeout), read: HTTPClientTransport.amount(timeout)),
            decompression: .enabled(limit: .size(Self.maxBodyBytes))
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    deinit {
        client.shutdown(queue: .global()) { _ in }
    }

    /// Asks for a token with `form` (its `grant_type` and what that grant needs).
    public func token(
        _ settings: SignInSettings, form: [(String, String)], now: @Sendable () -> Date = Date.init
    ) async throws(SignInError) -> IssuedToken {
        var fields = form
        if let scope = settings.scope, !scope.isEmpty { fields.append(("scope", scope)) }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        headers.add(name: "Accept", value: "application/json")
        if let secret = settings.clientSecret, !secret.isEmpty {
            let pair = Self.formEncode(settings.clientID) + ":" + Self.formEncode(secret)
            headers.add(name: "Authorization", value: "Basic " + Data(pair.utf8).base64EncodedString())
        } else {
            fields.append(("client_id", settings.clientID))
        }
        let body = fields.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&")
        let started = now()
        let (status, type, bytes) = try await exchange(
            url: settings.tokenURL, method: .POST, headers: headers, body: Array(body.utf8))
        return try TokenAnswer.read(status: status, contentType: type, body: bytes, now: started).get()
    }

    /// The token endpoint an OpenID provider names at `issuer/.well-known/openid-configuration`; it must be on the
    /// issuer's own origin (a document that sends tokens elsewhere is refused).
    public func discoverTokenURL(issuer: String) async throws(SignInError) -> String {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        var headers = HTTPHeaders()
        headers.add(name: "Accept", value: "application/json")
        let (status, _, body) = try await exchange(
            url: base + "/.well-known/openid-configuration", method: .GET, headers: headers, body: nil)
        guard (200..<300).contains(status) else {
            throw SignInError("the issuer's discovery document answered \(status)", isFinal: false)
        }
        guard let json = try? JSONReader().read(body), case .string(let endpoint)? = json["token_endpoint"] else {
            throw SignInError("the issuer's discovery document names no token_endpoint", isFinal: true)
        }
        guard let url = URL(string: endpoint), let issuerURL = URL(string: base),
            HTTPClientTransport.Origin(url) != nil,
            HTTPClientTransport.Origin(url) == HTTPClientTransport.Origin(issuerURL)
        else {
            throw SignInError(
                "the issuer's discovery document sends tokens to \(TokenAnswer.quote(endpoint)), not to the issuer's "
                    + "own origin; refused", isFinal: true)
        }
        return endpoint
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
