import Foundation
import ODataCore
import Synchronization

/// The cookies one service sets, kept in memory for the life of its transport and sent back on later requests.
///
/// Gateways that put a session behind a cookie (SAP Gateway's `SAP_SESSIONID_…`, `sap-usercontext`, load
/// balancers' affinity cookies) otherwise log on again, or start a new session, for every request. A subset of
/// RFC 6265 that a single-service client needs:
///
/// * `Domain` widens a cookie to the subdomains of a domain the host is in; one naming another domain, or any
///   `Domain` on an IP address host, drops the cookie. Without it the cookie goes back to its host only.
/// * `Path` (else the request's directory) limits it by path prefix; `Secure` to `https`; `Max-Age` (before
///   `Expires`) ends it, and one already past deletes it. `HttpOnly` and `SameSite` change nothing here.
/// * A cookie with the same name, domain and path replaces the one before.
/// * Bounded: at most ``maxCookies`` (the oldest go first) of at most ``maxCookieBytes`` each.
///
/// Never written to disk and never logged; a value never appears in an error.
final class CookieJar: Sendable {
    static let maxCookies = 50
    static let maxCookieBytes = 4_096

    struct Cookie: Equatable {
        var name: String
        var value: String
        /// Lower-cased; the request host itself when `hostOnly`.
        var domain: String
        var hostOnly: Bool
        var path: String
        var secure: Bool
        var expires: Date?
    }

    private let cookies = Mutex<[Cookie]>([])

    /// What the jar holds now, oldest first.
    var all: [Cookie] { cookies.withLock { $0 } }

    /// Files the `Set-Cookie` header values of a response to `url`, received at `now`.
    func store(_ headers: [String], from url: URL, now: Date = Date()) {
        let parsed = headers.compactMap { Self.parse($0, from: url, now: now) }
        guard !parsed.isEmpty else { return }
        cookies.withLock { jar in
            for cookie in parsed {
                jar.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
                if cookie.expires.map({ $0 > now }) ?? true { jar.append(cookie) }
            }
            jar.removeAll { $0.expires.map { $0 <= now } ?? false }
            if jar.count > Self.maxCookies { jar.removeFirst(jar.count - Self.maxCookies) }
        }
    }

    /// The `Cookie` header for a request to `url` at `now`, or nil when no cookie applies.
    func header(for url: URL, now: Date = Date()) -> String? {
        guard let host = url.host?.lowercased() else { return nil }
        let path = url.path.isEmpty ? "/" : url.path
        let secure = url.scheme?.lowercased() == "https"
        let matching = cookies.withLock { jar in
            jar.filter { cookie in
                (cookie.expires.map { $0 > now } ?? true) && (secure || !cookie.secure)
                    && (cookie.hostOnly ? host == cookie.domain : Self.domain(host, isWithin: cookie.domain))
                    && Self.path(path, isWithin: cookie.path)
            }
        }
        guard !matching.isEmpty else { return nil }
        // Longer paths first (RFC 6265 5.4); the sort is stable, so older cookies come first among equals.
        return matching.sorted { $0.path.count > $1.path.count }.map { "\($0.name)=\($0.value)" }
            .joined(separator: "; ")
    }

    // MARK: - Parsing and matching

    /// One `Set-Cookie` value, or nil when it is malformed, too large or not this host's to set.
    static func parse(_ header: String, from url: URL, now: Date) -> Cookie? {
        guard header.utf8.count <= maxCookieBytes, let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        var parts = header.split(separator: ";", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let pair = parts.removeFirst()
        guard let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        var value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
            value = String(value.dropFirst().dropLast())
        }
        // A name or value that would break the `Cookie` header (or smuggle another header) is refused.
        guard !name.isEmpty,
            !(name + value).contains(where: {
                $0 == ";" || $0 == "," || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false
            }),
            !name.contains(" "), !name.contains("=")
        else { return nil }

        var cookie = Cookie(
            name: name, value: value, domain: host, hostOnly: true, path: defaultPath(url), secure: false, expires: nil)
        var maxAge: Int?
        var expires: Date?
        for attribute in parts {
            let (key, argument): (String, String) =
                if let equals = attribute.firstIndex(of: "=") {
                    (
                        attribute[..<equals].trimmingCharacters(in: .whitespaces).lowercased(),
                        attribute[attribute.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                    )
                } else {
                    (attribute.lowercased(), "")
                }
            switch key {
            case "domain":
                var domain = argument.lowercased()
                if domain.hasPrefix(".") { domain.removeFirst() }
                guard !domain.isEmpty else { continue }
                if domain == host {
                    cookie.hostOnly = false
                } else if Self.domain(host, isWithin: domain), domain.contains(".") {
                    cookie.domain = domain
                    cookie.hostOnly = false
                } else {
                    return nil
                }
            case "path":
                cookie.path = argument.hasPrefix("/") ? argument : defaultPath(url)
            case "secure":
                cookie.secure = true
            case "max-age":
                let digits = argument.hasPrefix("-") ? argument.dropFirst() : Substring(argument)
                guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { continue }
                maxAge = argument.hasPrefix("-") ? -1 : Int(digits) ?? Int.max
            case "expires":
                expires = HTTPDate.parse(argument)
            default:
                continue
            }
        }
        if let maxAge {
            cookie.expires =
                maxAge <= 0 ? .distantPast : now.addingTimeInterval(TimeInterval(min(maxAge, 400 * 86_400)))
        } else if let expires {
            cookie.expires = expires
        }
        return cookie
    }

    /// The directory of the request path: `/svc/Person` → `/svc`; `/`, `/Person` and no path → `/`.
    static func defaultPath(_ url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// RFC 6265 domain-match: the host itself, or a name ending in `.domain` (never an IP address).
    static func domain(_ host: String, isWithin domain: String) -> Bool {
        if host == domain { return true }
        guard host.hasSuffix("." + domain) else { return false }
        return IPAddress(host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host) == nil
    }

    /// RFC 6265 path-match: the same path, or a prefix that ends at a `/`.
    static func path(_ path: String, isWithin cookiePath: String) -> Bool {
        guard path.hasPrefix(cookiePath) else { return false }
        return path.count == cookiePath.count || cookiePath.hasSuffix("/")
            || path[path.index(path.startIndex, offsetBy: cookiePath.count)] == "/"
    }
}
