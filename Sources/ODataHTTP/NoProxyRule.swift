import Foundation

/// One entry of `no_proxy`: hosts that are reached directly, without the proxy.
///
/// * `*` matches every host;
/// * a name matches itself and every name under it, with or without a leading `.` or `*.`
///   (`example.com`, `.example.com` and `*.example.com` all match `example.com` and `api.example.com`,
///   never `notexample.com`); case and a trailing `.` do not matter;
/// * an IP address matches that address, or with `/bits` (`10.0.0.0/8`, `fe80::/10`) a network; an IPv6
///   address is written bare (`::1`) or in brackets (`[::1]`); names and addresses are never resolved to
///   compare them;
/// * any entry may end with `:port` (`[::1]:8080` for IPv6) to match only that port.
///
/// Entries that are none of these (a port that is not a number, `/bits` on a name) match nothing.
struct NoProxyRule: Sendable, Hashable {
    enum Pattern: Sendable, Hashable {
        case everything
        /// Lower-cased, without leading or trailing dots.
        case domain(String)
        case network(IPAddress, prefixBits: Int)
    }

    var pattern: Pattern
    /// Only this port, when given.
    var port: Int?

    /// Parses one entry; nil when it can match nothing.
    init?(_ entry: Substring) {
        let text = entry.trimmingCharacters(in: .whitespaces)
        if text == "*" {
            pattern = .everything
            return
        }
        guard let parts = HostAndPort.split(Substring(text)) else { return nil }
        if let portText = parts.port {
            guard let number = Int(portText), (1...65_535).contains(number) else { return nil }
            port = number
        }
        var host = parts.host
        var bits: Int?
        if let slash = host.firstIndex(of: "/") {
            guard let number = Int(host[host.index(after: slash)...]), number >= 0 else { return nil }
            bits = number
            host = String(host[..<slash])
        }
        if let address = IPAddress(host) {
            let length = address.bytes.count * 8
            guard (bits ?? length) <= length else { return nil }
            pattern = .network(address, prefixBits: bits ?? length)
            return
        }
        guard bits == nil else { return nil }
        if host.hasPrefix("*.") { host.removeFirst(2) }
        let name = NoProxyRule.canonical(host)
        guard !name.isEmpty, HostAndPort.isValidHost(name) else { return nil }
        pattern = .domain(name)
    }

    /// Whether a request to `host` (canonical: see ``canonical(_:)``) on `port` goes direct.
    func matches(host: String, address: IPAddress?, port: Int) -> Bool {
        if let only = self.port, only != port { return false }
        switch pattern {
        case .everything:
            return true
        case .domain(let domain):
            return address == nil && (host == domain || host.hasSuffix("." + domain))
        case .network(let network, let bits):
            return address.map { $0.matches(network, prefixBits: bits) } ?? false
        }
    }

    /// Lower-cased, brackets and leading and trailing dots removed: how hosts and entries are compared.
    static func canonical(_ host: String) -> String {
        var name = Substring(host.lowercased())
        if name.hasPrefix("["), name.hasSuffix("]") { name = name.dropFirst().dropLast() }
        while name.hasPrefix(".") { name = name.dropFirst() }
        while name.hasSuffix(".") { name = name.dropLast() }
        return String(name)
    }

    /// Every rule of a `no_proxy` value: entries separated by commas or blanks, as curl reads them.
    static func list(_ value: String) -> [NoProxyRule] {
        value.split { $0 == "," || $0 == " " || $0 == "\t" }.compactMap { NoProxyRule($0) }
    }
}
