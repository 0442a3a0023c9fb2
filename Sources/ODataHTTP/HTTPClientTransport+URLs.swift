import Foundation
import ODataCore

/// The URLs a transport sends to: query parameters every request carries, and where a redirect may lead (within
/// the origin the request went to, never elsewhere).
extension HTTPClientTransport {
    /// `url` with each of `parameters` its query does not name already.
    static func adding(_ parameters: [(name: String, value: String)], to url: URL) -> URL {
        guard !parameters.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url
        }
        let named = Set((components.queryItems ?? []).map { $0.name.lowercased() })
        let added = parameters.filter { !named.contains($0.name.lowercased()) }.map {
            PercentEncoding.encodeQueryValue($0.name) + "=" + PercentEncoding.encodeQueryValue($0.value)
        }
        guard !added.isEmpty else { return url }
        let existing = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 }
        components.percentEncodedQuery = ([existing].compactMap { $0 } + added).joined(separator: "&")
        return components.url ?? url
    }

    /// An `http` or `https` URL with a host, or nil.
    static func webURL(_ string: String) -> URL? {
        guard let url = URL(string: string), Origin(url) != nil else { return nil }
        return url
    }

    /// Where a 301, 302, 303, 307 or 308 points, when that is within the origin `url` came from.
    static func sameOriginRedirect(_ response: TransportResponse, from url: URL) -> URL? {
        guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["location"],
            let target = URL(string: location, relativeTo: url)?.absoluteURL,
            let origin = Origin(target), origin == Origin(url)
        else { return nil }
        return target
    }

    /// Scheme, host and port: what decides whether credentials may follow a redirect.
    struct Origin: Equatable, CustomStringConvertible {
        var scheme: String
        var host: String
        var port: Int

        init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                let host = url.host?.lowercased(), !host.isEmpty
            else { return nil }
            self.scheme = scheme
            self.host = host
            port = url.port ?? (scheme == "https" ? 443 : 80)
        }

        var description: String { "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
    }
}
