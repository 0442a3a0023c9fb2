/// Where a service document says the service's annotation document is.
///
/// SAP Gateway publishes a v2 service's UI annotations in a document of their own, and no protocol says where;
/// a service document may name it: an Atom `<atom:link rel="…/annotations" href="…"/>` of the `app:service`
/// element (as `mock-sap` and some gateways do), or, in JSON, a `__annotations` member beside `EntitySets`.
public enum AnnotationLinks {
    /// The link relation of an annotation document.
    public static let relationSuffix = "/annotations"

    /// The annotation documents `body` (a service document, Atom or JSON) names, made absolute against `root`;
    /// empty when it names none or is not a service document. At most ``maxLinks``.
    public static func links(in body: [UInt8], root: String) -> [String] {
        let start = body.first {
            !(0x20 == $0 || 0x09 == $0 || 0x0A == $0 || 0x0D == $0 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF)
        }
        var found: [String] = []
        if start == UInt8(ascii: "<") {
            guard let root = try? XMLReader.parse(body), root.name == "service" else { return [] }
            for link in root.children(named: "link") {
                guard let relation = link.attribute("rel"), relation.hasSuffix(relationSuffix),
                    let href = link.attribute("href"), !href.isEmpty
                else { continue }
                found.append(href)
            }
        } else if start == UInt8(ascii: "{") {
            guard let document = try? JSONReader(maximumDepth: 8).read(body) else { return [] }
            if case .string(let href)? = document["d"]?["__annotations"] ?? document["__annotations"], !href.isEmpty {
                found.append(href)
            }
        }
        return Array(found.compactMap { absolute($0, root: root) }.prefix(maxLinks))
    }

    /// The most annotation documents one service document is followed to.
    public static let maxLinks = 4

    /// `href` against `root`: an absolute `http(s)` URL as it is, an absolute path on `root`'s origin, else a path
    /// relative to `root`. Nil for any other scheme.
    static func absolute(_ href: String, root: String) -> String? {
        let lower = href.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return href }
        // Another scheme (`mailto:`, `javascript:`, `file:`) is no document of the service's.
        if let colon = href.firstIndex(of: ":"), !href[..<colon].contains("/") { return nil }
        if href.hasPrefix("/") {
            guard let scheme = root.range(of: "://") else { return nil }
            let afterHost = root[scheme.upperBound...].firstIndex(of: "/") ?? root.endIndex
            return String(root[..<afterHost]) + href
        }
        return (root.hasSuffix("/") ? root : root + "/") + href
    }
}
