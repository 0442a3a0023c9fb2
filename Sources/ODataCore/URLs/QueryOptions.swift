import Foundation

/// System query options of OData v2 (`$expand`, `$filter`, …) and custom ones.
public struct QueryOptions: Sendable, Hashable {
    /// Navigation paths to expand, e.g. `["PersonCar", "PersonCar/Car"]`.
    public var expand: [String] = []
    /// Properties (or paths into expansions) to return.
    public var select: [String] = []
    /// A `$filter` expression, unencoded.
    public var filter: String?
    /// A free-text search, as the user typed it: v4 `$search` (one word, or the whole text as one phrase), SAP's v2
    /// `search`. Only for a set the service says it searches (``ServiceModel/searches(_:)``).
    public var search: String?
    /// `$orderby` items, e.g. `[.init("lastName"), .init("createDate", descending: true)]`.
    public var orderBy: [OrderItem] = []
    public var top: Int?
    public var skip: Int?
    public var skipToken: String?
    /// `$inlinecount=allpages` when true.
    public var inlineCount: Bool = false
    /// `$format=json` fallback for servers that ignore `Accept`.
    public var formatJSON: Bool = false
    /// Service-specific options (`sap-client=100`), kept in order.
    public var custom: [(name: String, value: String)] = []

    /// One `$orderby` item.
    public struct OrderItem: Sendable, Hashable {
        public var property: String
        public var descending: Bool

        public init(_ property: String, descending: Bool = false) {
            self.property = property
            self.descending = descending
        }
    }

    public init(
        expand: [String] = [], select: [String] = [], filter: String? = nil, orderBy: [OrderItem] = [],
        top: Int? = nil, skip: Int? = nil, skipToken: String? = nil, inlineCount: Bool = false,
        formatJSON: Bool = false
    ) {
        self.expand = expand
        self.select = select
        self.filter = filter
        self.orderBy = orderBy
        self.top = top
        self.skip = skip
        self.skipToken = skipToken
        self.inlineCount = inlineCount
        self.formatJSON = formatJSON
    }

    /// The query string without `?` as OData v2 spells it: literal `$`, spaces as `%20`, options in a fixed order.
    public var queryText: String { queryText(for: .v2) }

    /// The query string without `?` in `dialect`: v4 nests expansions (`A($expand=B)` for `A/B`) and asks
    /// `$count=true` for `$inlinecount=allpages`.
    public func queryText(for dialect: ODataDialect) -> String {
        var items: [String] = []
        func add(_ name: String, _ value: String) {
            items.append(name + "=" + PercentEncoding.encodeQueryValue(value))
        }
        if dialect == .v4 {
            // v4 selects inside each expansion (`A($select=x;$expand=B)`); the top level keeps the rest.
            if !expand.isEmpty { add("$expand", Self.nestedExpand(expand, select: select)) }
            let top = select.filter { !$0.contains("/") }
            if !top.isEmpty, !top.contains("*") { add("$select", top.joined(separator: ",")) }
        } else {
            if !expand.isEmpty { add("$expand", expand.joined(separator: ",")) }
            if !select.isEmpty { add("$select", select.joined(separator: ",")) }
        }
        if let filter { add("$filter", filter) }
        if let search, !search.isEmpty {
            if dialect == .v4 { add("$search", Self.searchExpression(search)) } else { add("search", search) }
        }
        if !orderBy.isEmpty {
            add("$orderby", orderBy.map { $0.property + ($0.descending ? " desc" : "") }.joined(separator: ","))
        }
        if let top { add("$top", String(top)) }
        if let skip { add("$skip", String(skip)) }
        if let skipToken { add("$skiptoken", skipToken) }
        if inlineCount {
            if dialect == .v4 { add("$count", "true") } else { add("$inlinecount", "allpages") }
        }
        if formatJSON { add("$format", "json") }
        for (name, value) in custom { add(PercentEncoding.encodeQueryValue(name), value) }
        return items.joined(separator: "&")
    }

    /// The v4 `$search` expression for a text typed in a search box: a word of letters and digits as it is; anything
    /// else (spaces, punctuation, the operators `AND`, `OR`, `NOT`) as one phrase, `"` and `\` escaped with `\`, so the
    /// service looks for the text as typed, as the rows here are searched.
    public static func searchExpression(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) }
        if plain, !["AND", "OR", "NOT"].contains(text), !text.isEmpty { return text }
        return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            + "\""
    }

    /// The navigations of an `$expand` path, each with the type cast before it (`NS.Mechanic/Certificates` is one:
    /// a qualified name has a dot, a navigation's never does).
    static func expandSegments(_ path: String) -> [String] {
        var segments: [String] = []
        var cast: String?
        for name in path.split(separator: "/").map(String.init) {
            if name.contains(".") {
                cast = (cast.map { $0 + "/" } ?? "") + name
                continue
            }
            segments.append(cast.map { $0 + "/" + name } ?? name)
            cast = nil
        }
        if let cast { segments.append(cast) }
        return segments
    }

    /// v2's expand paths (`PersonCar`, `PersonCar/Car`) as v4's nested form (`PersonCar($expand=Car)`), first
    /// appearance order kept. v2 `$select` paths below an expansion (`PersonCar/Car/make`) go inside it
    /// (`Car($select=make)`); `A/*` selects nothing narrower than the whole.
    static func nestedExpand(_ paths: [String], select: [String] = []) -> String {
        final class Node {
            var names: [String] = []
            var children: [String: Node] = [:]
            var select: [String] = []
        }
        let root = Node()
        for path in paths {
            var node = root
            for name in expandSegments(path) {
                if let child = node.children[name] {
                    node = child
                } else {
                    let child = Node()
                    node.names.append(name)
                    node.children[name] = child
                    node = child
                }
            }
        }
        for path in select {
            var names = path.split(separator: "/").map(String.init)
            guard names.count > 1, let field = names.popLast(), field != "*" else { continue }
            var node: Node? = root
            for name in names { node = node?.children[name] }
            node?.select.append(field)
        }
        func text(_ node: Node) -> String {
            node.names.map { name in
                let child = node.children[name]!
                var options: [String] = []
                if !child.select.isEmpty { options.append("$select=" + child.select.joined(separator: ",")) }
                if !child.names.isEmpty { options.append("$expand=" + text(child)) }
                return options.isEmpty ? name : name + "(" + options.joined(separator: ";") + ")"
            }.joined(separator: ",")
        }
        return text(root)
    }

    /// The options that decide *which* entities a list holds, in canonical text:
    /// custom options, `$filter` and `$orderby` only. Paging (`$top`, `$skip`, `$skiptoken`), shape
    /// (`$select`, `$expand`) and format do not change the list's identity (seed 004's
    /// "non-fielded endpoint").
    public var listIdentity: String {
        // (custom options of a list are a v2 function's parameters: another call, another list)
        var parts = custom.map { $0.name + "=" + $0.value }
        if let filter, !filter.isEmpty { parts.append("$filter=" + filter) }
        if let search, !search.isEmpty { parts.append("$search=" + search) }
        if !orderBy.isEmpty {
            parts.append(
                "$orderby=" + orderBy.map { $0.property + ($0.descending ? " desc" : "") }.joined(separator: ","))
        }
        return parts.joined(separator: "&")
    }

    public static func == (lhs: QueryOptions, rhs: QueryOptions) -> Bool { lhs.queryText == rhs.queryText }
    public func hash(into hasher: inout Hasher) { hasher.combine(queryText) }
}
