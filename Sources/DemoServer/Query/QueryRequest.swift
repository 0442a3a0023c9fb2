import ODataCore

/// The system query options of one request, parsed from the raw query string but not yet checked
/// against the schema (see ``QueryEngine``).
struct QueryRequest: Sendable {
    var expand: [String] = []
    /// The `$expand` text as sent, kept for next links (v4 nests it).
    var expandText: String?
    var select: [String] = []
    /// `$select`s inside v4 expansions, as v2 paths (`A/x`; `A/*` for an expansion that names none).
    private var expandSelect: [String] = []
    var filter: FilterExpression?
    /// The `$filter` text as sent, kept for `__next` links.
    var filterText: String?
    /// v4 `$search`, or SAP's v2 `search` (a custom option there): a free-text search of the set's searchable
    /// columns (``SearchParser``).
    var searchText: String?
    var orderBy: [(property: String, descending: Bool)] = []
    var orderByText: String?
    var top: Int?
    var skip: Int?
    var skipToken: [EntityKey.KeyValue]?
    var inlineCount = false
    /// A delta read (`$deltatoken`, SAP's v2 `!deltatoken`): what changed since this moment (ms since 1970).
    var deltaToken: Int64?
    /// Non-system options (`sap-client=100`), passed on in `__next` links.
    var custom: [(name: String, value: String)] = []

    /// The dialect of the root the request came to: v4 nests `$expand` and says `$count=true`.
    var dialect: ODataDialect = .v2

    /// Parses `a=1&b=2` (percent-encoded; `+` is not a space). Unknown `$` options and repeated options are 400.
    init(query: String?, dialect: ODataDialect = .v2) throws(ServiceError) {
        self.dialect = dialect
        guard let query, !query.isEmpty else { return }
        var seen: Set<String> = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentEncoding.decode(parts[0])
            let value = parts.count > 1 ? PercentEncoding.decode(parts[1]) : ""
            if name == "!deltatoken" {
                deltaToken = try Self.deltaToken(value)
                continue
            }
            guard name.hasPrefix("$") else {
                if name == "search", dialect == .v2 {
                    guard searchText == nil else { throw .badRequest("The query option search is given twice.") }
                    searchText = value
                    continue
                }
                custom.append((name, value))
                continue
            }
            guard seen.insert(name).inserted else { throw .badRequest("The query option \(name) is given twice.") }
            try apply(name, value)
        }
        if skipToken != nil, skip != nil { skip = nil }
        // v4 selects inside an expansion: as v2's paths, beside the top level's (every property when it names none).
        // v4 expands whatever `$select` names (v2 returns only what it names).
        if !select.isEmpty || expandSelect.contains(where: { !$0.hasSuffix("/*") }) {
            select = (select.isEmpty ? ["*"] : select) + expandSelect
        }
    }

    private mutating func apply(_ name: String, _ value: String) throws(ServiceError) {
        switch name {
        case "$expand":
            expandText = value
            expand = dialect == .v4 ? try Self.nestedExpandPaths(value, select: &expandSelect) : Self.list(value)
        case "$select": select = Self.list(value)
        case "$filter":
            filter = try FilterParser.parse(value)
            filterText = value
        case "$orderby":
            orderByText = value
            for item in Self.list(value) {
                let words = item.split(separator: " ", omittingEmptySubsequences: true)
                guard (1...2).contains(words.count), words.count == 1 || ["asc", "desc"].contains(words[1]) else {
                    throw .badRequest("$orderby: '\(item)' is not 'property [asc|desc]'.")
                }
                orderBy.append((String(words[0]), words.count == 2 && words[1] == "desc"))
            }
        case "$top": top = try Self.count(name, value)
        case "$skip": skip = try Self.count(name, value)
        case "$skiptoken":
            guard let values = KeyPredicate.parse(value), values.allSatisfy({ $0.name != nil }) else {
                throw .badRequest("$skiptoken '\(value)' was not issued by this service.")
            }
            skipToken = values
        case "$count" where dialect == .v4:
            guard value == "true" || value == "false" else {
                throw .badRequest("$count must be 'true' or 'false', not '\(value)'.")
            }
            inlineCount = value == "true"
        case "$inlinecount" where dialect == .v2:
            guard value == "allpages" || value == "none" else {
                throw .badRequest("$inlinecount must be 'allpages' or 'none', not '\(value)'.")
            }
            inlineCount = value == "allpages"
        case "$format":
            switch value.lowercased() {
            case "json", "application/json": break
            case "atom", "xml", "application/atom+xml", "application/xml":
                throw .notImplemented("$format=\(value): this service answers in JSON only.")
            default: throw .badRequest("$format '\(value)' is not known.")
            }
        case "$deltatoken":
            deltaToken = try Self.deltaToken(value)
        case "$search" where dialect == .v4:
            searchText = value
        case "$links", "$batch", "$callback":
            throw .notImplemented("\(name) is not supported by this service.")
        default:
            throw .badRequest("Unknown system query option \(name).")
        }
    }

    /// A delta token this service issued: `D` and the moment in ms (quoted in v2's `!deltatoken='D…'`).
    static func deltaToken(_ value: String) throws(ServiceError) -> Int64 {
        let text = value.trimmingCharacters(in: "'")
        guard text.hasPrefix("D"), let moment = Int64(text.dropFirst()), moment >= 0 else {
            throw .badRequest("The delta token '\(value)' was not issued by this service.")
        }
        return moment
    }

    /// v4's `A($expand=B($expand=C)),D` as the paths `A`, `A/B`, `A/B/C`, `D`; a `$select` inside the parentheses
    /// (`A($select=x,y)`) adds `A/x`, `A/y` to `select`, an expansion without one `A/*`. Other options inside the
    /// parentheses are refused (501), as are unbalanced ones (400).
    static func nestedExpandPaths(
        _ text: String, prefix: String = "", select: inout [String]
    ) throws(ServiceError) -> [String] {
        let items: [Substring]
        switch topLevel(Substring(text), separatedBy: ",") {
        case .success(let split): items = split
        case .failure(.closesUnopened):
            throw .badRequest("$expand '\(text)' closes a parenthesis it never opened.")
        case .failure(.leavesOpen): throw .badRequest("$expand '\(text)' leaves a parenthesis open.")
        }
        var paths: [String] = []
        for item in items {
            let trimmed = item.trimmingCharacters(in: " ")
            guard !trimmed.isEmpty else { continue }
            guard let open = trimmed.firstIndex(of: "(") else {
                paths.append(prefix + trimmed)
                select.append(prefix + trimmed + "/*")
                continue
            }
            let name = prefix + trimmed[..<open].trimmingCharacters(in: " ")
            paths.append(name)
            guard trimmed.hasSuffix(")") else { throw .badRequest("$expand '\(text)' is malformed.") }
            let inner = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
            var selected = false
            // (balanced: the whole text was)
            let options = (try? topLevel(inner, separatedBy: ";").get()) ?? [inner]
            for option in options where !option.trimmingCharacters(in: " ").isEmpty {
                let parts = option.split(separator: "=", maxSplits: 1)
                let optionName = parts[0].trimmingCharacters(in: " ")
                guard parts.count == 2, optionName == "$expand" || optionName == "$select" else {
                    throw .notImplemented(
                        "$expand options other than a nested $expand or $select are not supported here: '\(option)'.")
                }
                if optionName == "$select" {
                    selected = true
                    select += list(String(parts[1])).map { name + "/" + $0 }
                } else {
                    paths += try nestedExpandPaths(String(parts[1]), prefix: name + "/", select: &select)
                }
            }
            if !selected { select.append(name + "/*") }
        }
        return paths
    }

    /// Why parentheses do not balance.
    enum Unbalanced: Error { case closesUnopened, leavesOpen }

    /// `text` split at each `separator` outside parentheses (`A($expand=B,C),D` at `,` → `A($expand=B,C)`, `D`).
    static func topLevel(_ text: Substring, separatedBy separator: Character) -> Result<[Substring], Unbalanced> {
        var items: [Substring] = []
        var depth = 0
        var start = text.startIndex
        for index in text.indices {
            switch text[index] {
            case "(": depth += 1
            case ")":
                depth -= 1
                guard depth >= 0 else { return .failure(.closesUnopened) }
            case separator where depth == 0:
                items.append(text[start..<index])
                start = text.index(after: index)
            default: break
            }
        }
        guard depth == 0 else { return .failure(.leavesOpen) }
        items.append(text[start...])
        return .success(items)
    }

    /// Comma-separated items, trimmed, empty items dropped.
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0.trimmingCharacters(in: " ")) }.filter { !$0.isEmpty }
    }

    static func count(_ name: String, _ value: String) throws(ServiceError) -> Int {
        guard let number = Int(value), number >= 0 else {
            throw .badRequest("\(name) must be a non-negative integer, not '\(value)'.")
        }
        return number
    }
}

extension StringProtocol {
    /// The text without leading and trailing characters from `set`.
    func trimmingCharacters(in set: String) -> Substring {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return slice
    }
}
