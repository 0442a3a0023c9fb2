import AsyncHTTPClient
import Foundation

/// An HTTP proxy to send requests through: its host, its port and, optionally, basic credentials for it.
///
/// Read from the value of a proxy variable (``parse(_:variable:)``): `host:port`, `http://host:port` or
/// `http://user:password@host:port` (user and password percent-decoded), with curl's default port 1080 when
/// none is given. AsyncHTTPClient sends every request through it in a `CONNECT` tunnel (https and http alike),
/// so an `https://` proxy, one that is itself reached over TLS, cannot be used and is refused, as are SOCKS ones.
///
/// The credentials never leave this value except as the `Proxy-Authorization` header of the `CONNECT`
/// request: its description is `http://host:port`, and its mirror and debug description leave them out too.
public struct ProxyServer: Sendable, Hashable {
    /// The port curl assumes for a proxy given without one.
    public static let defaultPort = 1080

    /// A name or an IP address (an IPv6 one without brackets).
    public var host: String
    public var port: Int
    /// Basic credentials for the proxy (never in a description).
    var user: String?
    var password: String?

    public init(host: String, port: Int = defaultPort, user: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
    }

    /// Whether requests carry `Proxy-Authorization`.
    public var hasCredentials: Bool { user != nil }

    /// The proxy as AsyncHTTPClient takes it.
    var clientProxy: HTTPClient.Configuration.Proxy {
        let authorization = user.map { HTTPClient.Authorization.basic(username: $0, password: password ?? "") }
        return .server(host: host, port: port, authorization: authorization)
    }

    /// Parses a proxy variable's value; `variable` (`https_proxy`) names it in errors, which never repeat the value.
    public static func parse(
        _ value: String, variable: String
    ) throws(ProxySettings.ConfigurationError) -> ProxyServer {
        var rest = Substring(value.trimmingCharacters(in: .whitespaces))
        var scheme = "http"
        if let separator = rest.range(of: "://") {
            scheme = rest[..<separator.lowerBound].lowercased()
            rest = rest[separator.upperBound...]
        }
        switch scheme {
        case "http":
            break
        case "https":
            throw .init(
                "\(variable) names an https:// proxy, which cannot be used: give the proxy's http:// address "
                    + "(requests to https services still go through it encrypted, in a CONNECT tunnel).")
        case "socks4", "socks4a", "socks5", "socks5h":
            throw .init("\(variable) names a \(scheme):// proxy; SOCKS proxies are not supported, only http:// ones.")
        default:
            let shown = scheme.count <= 10 && scheme.allSatisfy { $0.isLetter || $0.isNumber } ? " \(scheme)://" : ""
            throw .init("\(variable) names a proxy of scheme\(shown) that is not supported; only http:// proxies are.")
        }
        // The authority ends where a path, query or fragment starts; like curl, a path is ignored.
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var hostAndPort = authority
        var user: String?
        var password: String?
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            hostAndPort = authority[authority.index(after: at)...]
            let colon = userInfo.firstIndex(of: ":")
            let rawUser = colon.map { userInfo[..<$0] } ?? userInfo
            let rawPassword = colon.map { userInfo[userInfo.index(after: $0)...] } ?? ""
            if !rawUser.isEmpty || !rawPassword.isEmpty {
                user = String(rawUser).removingPercentEncoding ?? String(rawUser)
                password = String(rawPassword).removingPercentEncoding ?? String(rawPassword)
            }
        }
        let expected = "expected host:port or http://[user:password@]host:port."
        guard let parts = HostAndPort.split(hostAndPort), HostAndPort.isValidHost(parts.host) else {
            throw .init("\(variable) is not a proxy address: \(expected)")
        }
        var port = defaultPort
        if let portText = parts.port {
            guard let number = Int(portText), portText.allSatisfy(\.isASCII), (1...65_535).contains(number) else {
                throw .init("\(variable) has a port that is not a number from 1 to 65535.")
            }
            port = number
        }
        return ProxyServer(host: parts.host, port: port, user: user, password: password)
    }
}

extension ProxyServer: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `http://proxy.example.com:3128`, `http://[::1]:3128`: never the credentials.
    public var description: String {
        "http://" + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    public var debugDescription: String {
        "ProxyServer(" + description + (hasCredentials ? ", with credentials" : "") + ")"
    }

    /// What `dump` and the debugger show: no user, no password.
    public var customMirror: Mirror {
        Mirror(self, children: ["host": host, "port": port, "hasCredentials": hasCredentials], displayStyle: .struct)
    }
}

/// Splitting `host:port`, `[v6]:port` and bare hosts, shared by proxy addresses and `no_proxy` entries.
enum HostAndPort {
    /// The host (brackets removed) and the port text if any; nil when the shape is wrong. A bare IPv6 address
    /// (two colons or more, no brackets) is a host without a port.
    static func split(_ text: Substring) -> (host: String, port: Substring?)? {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let after = text[text.index(after: close)...]
            if after.isEmpty { return (host, nil) }
            guard after.hasPrefix(":") else { return nil }
            return (host, after.dropFirst())
        }
        let colons = text.filter { $0 == ":" }.count
        if colons == 1, let colon = text.firstIndex(of: ":") {
            return (String(text[..<colon]), text[text.index(after: colon)...])
        }
        return (String(text), nil)
    }

    /// A DNS name (letters, digits, `-`, `_`, `.`) or an IP address.
    static func isValidHost(_ host: String) -> Bool {
        guard !host.isEmpty else { return false }
        if IPAddress(host) != nil { return true }
        return host.allSatisfy(nameCharacters.contains)
    }

    private static let nameCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
}
