/// `Common.ValueListReferences` (issue 33): a property whose values another service lists. SAP's RAP services
/// publish each value help as a service of its own; the property names that service's `$metadata`, by a URL
/// relative to its own service's, and the value-help service says, in a `Common.ValueListMapping` aimed at the
/// property (`Target="NS.Type/property"`), which of its sets lists the values and how their properties meet the
/// form's — the same record as a `Common.ValueList`'s.
///
/// A reference is followed only on the service's own origin (scheme, host and port): the session's sign-in goes
/// with every request, and a service may not send it elsewhere.
public enum ValueListReference {
    /// The most references one property keeps, and the longest one taken.
    static let maximumReferences = 8
    static let maximumLength = 2048
    /// The most properties one value-help document's mappings are kept for.
    static let maximumTargets = 4096

    /// The URLs of a `Common.ValueListReferences` annotation (a collection of strings), as written.
    static func references(in annotation: XMLNode) -> [String] {
        let strings = annotation.child(named: "Collection")?.children(named: "String") ?? []
        var found: [String] = []
        for string in strings {
            let text = String(string.text.filter { !$0.isWhitespace })
            guard !text.isEmpty, text.utf8.count <= maximumLength, !found.contains(text) else { continue }
            found.append(text)
            if found.count == maximumReferences { break }
        }
        return found
    }

    /// Why a reference is not followed.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// Neither `http` nor `https`, nor a path.
        case notHTTP
        /// On another origin than the service's: its host (and port) as written.
        case anotherOrigin(String)
        /// Not a `$metadata` document's URL.
        case notMetadata

        public var description: String {
            switch self {
            case .notHTTP: "its address is not http(s)"
            // (where the session's sign-in is not sent)
            case .anotherOrigin(let host): "it is on another server, \(host)"
            case .notMetadata: "it names no $metadata"
            }
        }
    }

    /// The service root of the value-help service `reference` names, resolved (RFC 3986, section 5.2) against the
    /// `$metadata` of the service at `root` (one trailing slash); its query and fragment are dropped.
    public static func serviceRoot(of reference: String, forServiceAt root: String) -> Result<String, Refusal> {
        let root = root.hasSuffix("/") ? root : root + "/"
        guard let base = Parts(root + "$metadata") else { return .failure(.notHTTP) }
        var text = reference
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        if let question = text.firstIndex(of: "?") { text = String(text[..<question]) }
        let target: Parts
        if let absolute = Parts(text) {
            target = absolute
        } else if let colon = text.firstIndex(of: ":"), !text[..<colon].contains("/") {
            return .failure(.notHTTP)
        } else if text.hasPrefix("//"), let network = Parts(base.scheme + ":" + text) {
            target = network
        } else if text.hasPrefix("/") {
            target = Parts(scheme: base.scheme, authority: base.authority, path: removingDots(text))
        } else {
            let end = base.path.lastIndex(of: "/").map { base.path.index(after: $0) } ?? base.path.startIndex
            let directory = base.path[..<end]
            target = Parts(scheme: base.scheme, authority: base.authority, path: removingDots(directory + text))
        }
        guard target.authority.utf8.allSatisfy({ $0 < 0x80 }), target.origin == base.origin else {
            return .failure(.anotherOrigin(String(target.authority.prefix(40))))
        }
        // (written as the service's root writes it: one service, one root, one cache, however the reference spelt it)
        for name in ["$metadata", "%24metadata"] where target.path.hasSuffix("/" + name) {
            return .success(base.scheme + "://" + base.authority + String(target.path.dropLast(name.count)))
        }
        return .failure(.notMetadata)
    }

    /// An absolute `http(s)` URL's parts.
    struct Parts {
        var scheme: String
        var authority: String
        var path: String

        init(scheme: String, authority: String, path: String) {
            self.scheme = scheme
            self.authority = authority
            self.path = path
        }

        init?(_ url: String) {
            guard let separator = url.range(of: "://") else { return nil }
            let scheme = url[..<separator.lowerBound].lowercased()
            guard scheme == "http" || scheme == "https" else { return nil }
            let rest = url[separator.upperBound...]
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            guard slash != rest.startIndex else { return nil }
            self.init(
                scheme: scheme, authority: String(rest[..<slash]),
                path: slash == rest.endIndex ? "/" : ValueListReference.removingDots(String(rest[slash...])))
        }

        /// Scheme, host and port, the port written out when left to the scheme (a user part kept: a URL that
        /// carries one is not the service's).
        var origin: String {
            let hostPort = String(
                decoding: authority.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
            let hasPort = hostPort.last != "]" && hostPort.split(separator: "@").last?.contains(":") == true
            return scheme + "://" + hostPort + (hasPort ? "" : scheme == "https" ? ":443" : ":80")
        }
    }

    /// A path without its `.` and `..` segments (RFC 3986, section 5.2.4); never above the root.
    static func removingDots(_ path: String) -> String {
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment {
            case ".":
                if last { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            default: output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }
}

extension ServiceModel {
    /// The `Common.ValueListMapping`s this document (a value-help service's) aims at `property` of the entity type
    /// qualified `type` of another service: the unqualified mapping first.
    public func valueListMappings(for property: String, ofType type: String) -> [ValueList] {
        valueListMappings[type + "/" + property] ?? []
    }

    /// The mappings aimed at `property` through the first of `types` (a type and its base types, nearest first,
    /// as ``qualifiedNames(of:)`` gives them) that has any: a property a base type declares may be aimed at there.
    public func valueListMappings(for property: String, ofTypes types: [String]) -> [ValueList] {
        valueListMappings(at: types.map { $0 + "/" + property })
    }

    /// The mappings aimed at the first of `targets` that has any (`NS.Type/property`, or an operation's parameter as
    /// ``ServiceOperation/valueListTargets(of:)`` names it).
    public func valueListMappings(at targets: [String]) -> [ValueList] {
        for target in targets {
            if let found = valueListMappings[target], !found.isEmpty { return found }
        }
        return []
    }
}
