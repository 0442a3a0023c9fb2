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

    /// Where SAP Gateway's catalog service keeps the annotation document generated for the v2 service at `root`:
    /// `…/sap/opu/odata/IWFND/CATALOGSERVICE;v=2/Annotations(TechnicalName='<SERVICE>_VAN',Version='0001')/$value`
    /// on the same origin, under the same prefix. Nil unless `root` is a Gateway v2 root,
    /// `…/sap/opu/odata/<namespace>/<SERVICE>/` (a matrix part such as `;v=2` after the name is not part of it), whose
    /// name is letters, digits and underscores; for a catalog root itself.
    public static func catalogDocument(forServiceAt root: String) -> String? {
        guard let scheme = root.range(of: "://") else { return nil }
        let afterHost = root[scheme.upperBound...].firstIndex(of: "/") ?? root.endIndex
        let path = root[afterHost...]
        guard let marker = path.range(of: "/sap/opu/odata/", options: .caseInsensitive) else { return nil }
        let segments = path[marker.upperBound...].split(separator: "/", omittingEmptySubsequences: false)
        // (exactly a namespace and a name, then the root's trailing slash, or none)
        guard segments.count == 2 || (segments.count == 3 && segments[2].isEmpty), !segments[0].isEmpty else {
            return nil
        }
        let written = segments[1].prefix { $0 != ";" }
        let name = written.uppercased()
        guard !written.isEmpty, written.utf8.allSatisfy({ isNameByte($0) }),
            !(segments[0].uppercased() == "IWFND" && name == "CATALOGSERVICE")
        else { return nil }
        return String(root[..<afterHost]) + path[..<marker.lowerBound]
            + "/sap/opu/odata/IWFND/CATALOGSERVICE;v=2/Annotations(TechnicalName='\(name)_VAN',Version='0001')/$value"
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == UInt8(ascii: "_")
    }
}
