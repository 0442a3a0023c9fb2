import Foundation

/// Which proxy, if any, requests to a service go through: the proxy environment variables, read as curl reads them.
///
/// * http services: `http_proxy`, lower-case only (a CGI server turns a client's `Proxy:` header into
///   `HTTP_PROXY`, so curl ignores that name, and so does this);
/// * https services: `https_proxy`, else `HTTPS_PROXY`;
/// * for either, when that is not set: `all_proxy`, else `ALL_PROXY`;
/// * hosts that `no_proxy` (else `NO_PROXY`) lists are reached directly (see ``NoProxyRule``), and so are
///   loopback hosts (`localhost`, `*.localhost`, `127.0.0.0/8`, `::1`) whatever the variables say: the
///   built-in demo service on 127.0.0.1 keeps working with a proxy set.
///
/// Lower case wins over upper case, and an empty variable counts as unset, as in curl. Only the variable that
/// applies is parsed (``ProxyServer/parse(_:variable:)``), so a bad `https_proxy` does not stop an http service.
/// Pure: reads only the dictionary it is given.
public struct ProxySettings: Sendable, Hashable {
    /// A proxy variable that is set: its name, for messages, and its value.
    struct Variable: Sendable, Hashable {
        var name: String
        var value: String
    }

    /// What http services go through.
    var http: Variable?
    /// What https services go through.
    var https: Variable?
    var noProxy: [NoProxyRule]

    /// The settings the environment gives (``ProcessInfo/environment`` in the browser).
    public init(environment: [String: String]) {
        func first(_ names: String...) -> Variable? {
            for name in names {
                if let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty {
                    return Variable(name: name, value: value)
                }
            }
            return nil
        }
        http = first("http_proxy", "all_proxy", "ALL_PROXY")
        https = first("https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY")
        noProxy = NoProxyRule.list(first("no_proxy", "NO_PROXY")?.value ?? "")
    }

    /// The proxy for requests to `url`, nil when they go directly.
    ///
    /// Throws when the variable that applies names a proxy that cannot be used, in a sentence that names the
    /// variable and never repeats its value.
    public func proxy(for url: URL) throws(ConfigurationError) -> ProxyServer? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else { return nil }
        let variable: Variable?
        switch scheme {
        case "http": variable = http
        case "https": variable = https
        default: return nil
        }
        guard let variable, !goesDirectly(host: host, port: url.port ?? (scheme == "https" ? 443 : 80)) else {
            return nil
        }
        return try ProxyServer.parse(variable.value, variable: variable.name)
    }

    /// Whether requests to `host` on `port` skip the proxy: loopback, or listed in `no_proxy`.
    public func goesDirectly(host: String, port: Int) -> Bool {
        let name = NoProxyRule.canonical(host)
        let address = IPAddress(name)
        if address?.isLoopback ?? (name == "localhost" || name.hasSuffix(".localhost")) { return true }
        return noProxy.contains { $0.matches(host: name, address: address, port: port) }
    }

    /// A proxy variable that cannot be used, said in a sentence without its value (it may hold a password).
    public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String

        init(_ description: String) { self.description = description }
    }
}
