/// The resource path of an OData URL: `Person(1)/PersonCar`, `Car(2)/$count`.
public struct ResourcePath: Sendable, Hashable, CustomStringConvertible {
    /// One path segment: a name, optionally with a key predicate.
    public struct Segment: Sendable, Hashable {
        public var name: String
        public var key: [EntityKey.KeyValue]?
        /// A v4 function called here (`CarsByMake(make=@make)`): `key` names its parameters, each written as an
        /// alias whose typed literal the query holds (`@make='Ford'`), and `()` when it has none.
        public var isCall = false

        public init(name: String, key: [EntityKey.KeyValue]? = nil, isCall: Bool = false) {
            self.name = name
            self.key = key
            self.isCall = isCall
        }
    }

    public var segments: [Segment]

    public init(segments: [Segment]) {
        self.segments = segments
    }

    /// An entity set, optionally one entity in it.
    public init(entitySet: String, key: [EntityKey.KeyValue]? = nil) {
        self.segments = [Segment(name: entitySet, key: key)]
    }

    /// The path to one entity; a contained one's goes through its container (`Person(1)/Trips(2)`).
    public init(_ key: EntityKey) {
        if key.entitySet.unicodeScalars.contains("/"), let container = ResourcePath.parse(relative: key.entitySet),
            container.segments.count > 1
        {
            var segments = container.segments
            segments[segments.count - 1].key = key.values
            self.init(segments: segments)
            return
        }
        // (a singleton's entity is addressed by its name alone)
        self.init(entitySet: key.entitySet, key: key.isSingleton ? nil : key.values)
    }

    /// The path of a list of `set`: the set's own, or a contained set's through its container (`Person(1)/Trips`).
    public init(set: String) {
        if set.unicodeScalars.contains("/"), let path = ResourcePath.parse(relative: set) {
            self.init(segments: path.segments)
            return
        }
        self.init(entitySet: set)
    }

    /// This path followed by a navigation property.
    public func appending(_ navigation: String, key: [EntityKey.KeyValue]? = nil) -> ResourcePath {
        ResourcePath(segments: segments + [Segment(name: navigation, key: key)])
    }

    /// The entity addressed when the path is exactly `Set(key)`.
    public var entityKey: EntityKey? {
        guard segments.count == 1, let key = segments[0].key else { return nil }
        return EntityKey(entitySet: segments[0].name, values: key)
    }

    /// Canonical text (no percent-encoding, canonical literals): part of cache keys.
    public var canonical: String {
        segments.map { segment in
            if segment.isCall {
                return segment.name + "("
                    + (segment.key ?? []).compactMap(\.name).map { $0 + "=@" + $0 }.joined(separator: ",") + ")"
            }
            guard let key = segment.key else { return segment.name }
            return segment.name + "(" + KeyPredicate.canonical(key) + ")"
        }.joined(separator: "/")
    }

    public var description: String { canonical }

    /// The path as it goes into a URL, with literals typed by `keyTypes` where known.
    /// `keyAsSegment`: a single key as a segment of its own (`Staff/3`, a string key unquoted and percent-encoded), as
    /// a service declaring `KeyAsSegmentSupported` takes it; a key of several properties keeps its parentheses.
    public func urlText(
        keyTypes: (String) -> [String: EdmPrimitiveType] = { _ in [:] }, dialect: ODataDialect = .v2,
        keyAsSegment: Bool = false
    ) -> String {
        segments.map { segment in
            let name = PercentEncoding.encodeSegmentName(segment.name)
            if segment.isCall {
                // Each parameter by an alias, its typed literal in the query (`@make='Ford'`): no literal in the path.
                let names = (segment.key ?? []).compactMap(\.name).map(PercentEncoding.encodeQueryValue)
                return name + "(" + names.map { $0 + "=@" + $0 }.joined(separator: ",") + ")"
            }
            guard let key = segment.key else { return name }
            if keyAsSegment, key.count == 1 {
                // (a string that would read as something else there, the collection itself, a system resource such
                // as `$each` or a type cast, goes in parentheses, which such a service takes too)
                guard case .string(let text) = key[0].value else {
                    return name + "/" + KeyPredicate.urlText(key, types: keyTypes(segment.name), dialect: dialect)
                }
                if !text.isEmpty, !text.hasPrefix("$"), !text.contains(".") {
                    return name + "/" + PercentEncoding.encodeSegmentName(text)
                }
            }
            return name + "(" + KeyPredicate.urlText(key, types: keyTypes(segment.name), dialect: dialect) + ")"
        }.joined(separator: "/")
    }

    /// Parses a path relative to the service root (`Person(1)/PersonCar`), percent-encoded or not.
    public static func parse(relative text: some StringProtocol) -> ResourcePath? {
        var segments: [Segment] = []
        for raw in splitSegments(Substring(text)) where !raw.isEmpty {
            guard let segment = parseSegment(raw) else { return nil }
            segments.append(segment)
        }
        return segments.isEmpty ? nil : ResourcePath(segments: segments)
    }

    /// Parses an absolute URI from a payload (`__metadata.uri`, `__deferred.uri`) into the
    /// path below `serviceRoot`. The host may differ from the root's (servers report their
    /// own host name), so the match is on the root's path, then on its last segment
    /// (e.g. `CarDealer.svc`), then the whole path is taken as relative.
    public static func parse(uri: String, serviceRoot: String) -> ResourcePath? {
        let path = pathPart(of: uri)
        let rootPath = pathPart(of: serviceRoot)
        let trimmedRoot = rootPath.hasSuffix("/") ? String(rootPath.dropLast()) : rootPath
        if !trimmedRoot.isEmpty, path.hasPrefix(trimmedRoot + "/") {
            return parse(relative: path.dropFirst(trimmedRoot.count + 1))
        }
        if let last = trimmedRoot.split(separator: "/").last, let range = path.range(of: "/" + last + "/") {
            return parse(relative: path[range.upperBound...])
        }
        if !uri.contains("://") { return parse(relative: path) }
        return nil
    }

    /// The path of an absolute or relative URI, without query or fragment.
    static func pathPart(of uri: String) -> String {
        var rest = Substring(uri)
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
        if let scheme = rest.range(of: "://") {
            let afterScheme = rest[scheme.upperBound...]
            rest = afterScheme.firstIndex(of: "/").map { afterScheme[$0...] } ?? ""
        }
        return String(rest)
    }

    /// Splits on `/` outside parentheses and quotes.
    ///
    /// Syntax is read by Unicode scalar, not by Character: a combining mark after a quote or a
    /// parenthesis (`'\u{0332}`) is one Character, and would hide the quote in raw text while its
    /// percent-encoded form shows it, so a path would parse differently from its own URL.
    static func splitSegments(_ text: Substring) -> [Substring] {
        let scalars = text.unicodeScalars
        var result: [Substring] = []
        var depth = 0
        var inQuote = false
        var start = scalars.startIndex
        var index = scalars.startIndex
        while index < scalars.endIndex {
            switch scalars[index] {
            case "'" where depth > 0: inQuote.toggle()
            case "(" where !inQuote: depth += 1
            case ")" where !inQuote: depth = max(0, depth - 1)
            case "/" where depth == 0 && !inQuote:
                result.append(Substring(scalars[start..<index]))
                start = scalars.index(after: index)
            default: break
            }
            index = scalars.index(after: index)
        }
        result.append(Substring(scalars[start...]))
        return result
    }

    static func parseSegment(_ raw: Substring) -> Segment? {
        let scalars = raw.unicodeScalars
        guard let open = scalars.firstIndex(of: "(") else {
            let name = PercentEncoding.decode(raw)
            return name.isEmpty ? nil : Segment(name: name)
        }
        guard scalars.last == ")" else { return nil }
        let name = PercentEncoding.decode(Substring(scalars[..<open]))
        let predicate = PercentEncoding.decode(
            Substring(scalars[scalars.index(after: open)..<scalars.index(before: scalars.endIndex)]))
        guard !name.isEmpty else { return nil }
        if predicate.isEmpty { return Segment(name: name) }
        guard let key = KeyPredicate.parse(predicate) else { return nil }
        return Segment(name: name, key: key)
    }
}
