import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The authorization code grant with PKCE (RFC 7636, S256) and a loopback redirect (RFC 8252 §7.3), for a desktop
/// with a web browser: the user opens the authorization URL, signs in there, and the browser brings the code back
/// to `http://127.0.0.1:PORT/callback`, where this client listens for that one request.
///
/// The `state` sent is checked on the way back (another page's request is refused), the code verifier never leaves
/// this process but in the token request, and the listener takes nothing but the callback (bounded: 8 KiB, one
/// connection at a time, until `timeout`).
public enum AuthorizationCodeFlow {
    /// A random URL-safe string of `bytes` random bytes.
    static func random(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL(Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// PKCE's S256 challenge for `verifier`.
    static func challenge(_ verifier: String) -> String {
        base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// Signs in: `open` is given the URL to open in a web browser; the token once the browser comes back with a
    /// code (within `timeout` seconds).
    public static func run(
        _ settings: SignInSettings, endpoint: TokenEndpoint, timeout: TimeInterval = 300,
        open: @Sendable (String) -> Void
    ) async throws(SignInError) -> IssuedToken {
        guard let authorizeURL = settings.authorizeURL else {
            throw SignInError(
                "the code grant needs the authorization endpoint: --authorize-url URL, or --issuer URL whose "
                    + "discovery document names it", isFinal: true)
        }
        let listener = try LoopbackRedirect()
        defer { listener.close() }
        let redirect = "http://127.0.0.1:\(listener.port)/callback"
        let verifier = random(32)
        let state = random(16)
        let query =
            [
                ("response_type", "code"), ("client_id", settings.clientID), ("redirect_uri", redirect),
                ("state", state), ("code_challenge", challenge(verifier)), ("code_challenge_method", "S256"),
            ] + (settings.scope.map { [("scope", $0)] } ?? [])
        let separator = authorizeURL.contains("?") ? "&" : "?"
        open(
            authorizeURL + separator
                + query.map { TokenEndpoint.formEncode($0.0) + "=" + TokenEndpoint.formEncode($0.1) }.joined(
                    separator: "&"))
        let answer = try await listener.callback(timeout: timeout, state: state)
        if let error = answer["error"] {
            let detail = answer["error_description"].map { " (" + TokenAnswer.quote($0) + ")" } ?? ""
            throw SignInError(
                "the authorization server said " + TokenAnswer.quote(error) + detail, isFinal: true, code: error)
        }
        guard let code = answer["code"], !code.isEmpty else {
            throw SignInError("the sign-in came back without a code", isFinal: true)
        }
        return try await endpoint.token(
            settings,
            form: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
                ("code_verifier", verifier),
            ], withScope: false)
    }
}

/// A listening socket on 127.0.0.1 for one browser redirect.
final class LoopbackRedirect: Sendable {
    let socket: Int32
    let port: Int

    init() throws(SignInError) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw SignInError("cannot listen on 127.0.0.1 for the sign-in", isFinal: true) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard bound == 0, listen(socket, 4) == 0 else {
            Glibc.close(socket)
            throw SignInError("cannot listen on 127.0.0.1 for the sign-in", isFinal: true)
        }
        self.socket = socket
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        shutdown(socket, Int32(SHUT_RDWR))
        Glibc.close(socket)
    }

    /// The callback's query parameters, from the first request to `/callback` with `state` within `timeout`
    /// seconds; other requests (a favicon) get a 404, a callback with another state (another page's, a forgery)
    /// a 400, and are otherwise ignored.
    func callback(timeout: TimeInterval, state: String) async throws(SignInError) -> [String: String] {
        let deadline = Date().addingTimeInterval(timeout)
        let result: [String: String]? = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.wait(until: deadline, state: state)) }.start()
        }
        guard let result else {
            throw SignInError(
                "no sign-in came back within \(Int(timeout)) s; run cardealer login again", isFinal: true)
        }
        return result
    }

    /// Blocking: accepts connections until one brings the callback or the deadline passes. Each connection has at
    /// most 5 s (and no longer than the deadline) to send its request line.
    func wait(until deadline: Date, state: String) -> [String: String]? {
        while true {
            let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard left > 0 else { return nil }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&descriptor, 1, left) > 0 else { return nil }
            let client = Glibc.accept(socket, nil, nil)
            guard client >= 0 else { continue }
            defer { Glibc.close(client) }
            let connectionDeadline = min(deadline, Date().addingTimeInterval(5))
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 2048)
            while bytes.count < 8192, !bytes.contains(0x0A) {
                let wait = Int32(max(0, connectionDeadline.timeIntervalSinceNow * 1000))
                var readable = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
                guard wait > 0, Glibc.poll(&readable, 1, wait) > 0 else { break }
                let read = recv(client, &buffer, buffer.count, 0)
                guard read > 0 else { break }
                bytes += buffer[0..<read]
            }
            let line = String(decoding: bytes.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
            let parts = line.split(separator: " ")
            guard parts.count >= 2, parts[0] == "GET", let target = URLComponents(string: String(parts[1])),
                target.path == "/callback"
            else {
                Self.reply(client, status: "404 Not Found", text: "Not found.")
                continue
            }
            var query: [String: String] = [:]
            for item in target.queryItems ?? [] { query[item.name] = item.value ?? "" }
            guard query["state"] == state else {
                Self.reply(client, status: "400 Bad Request", text: "This is not the sign-in cardealer is waiting for.")
                continue
            }
            let signedIn = query["code"] != nil && query["error"] == nil
            Self.reply(
                client, status: "200 OK",
                text: signedIn
                    ? "Signed in to cardealer. You can close this page."
                    : "The sign-in did not complete; cardealer says why in the terminal.")
            return query
        }
    }

    static func reply(_ client: Int32, status: String, text: String) {
        let body = Array("<!doctype html><title>cardealer</title><p>\(text)</p>\n".utf8)
        let head =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + body
        _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
