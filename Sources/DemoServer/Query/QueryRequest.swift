import ODataCore

/// The system query options of one request, parsed from the raw query string but not yet checked
/// against the schema (see ``QueryEngine``).
struct QueryRequest: Sendable {
    var expand: [String] = []
    var select: [String] = []
    var filter: FilterExpression?
    /// The `$filter` text as sent, kept for `__next` links.
    var filterText: String?
    var orderBy: [(property: String, descending: Bool)] = []
    var orderByText: String?
    var top: Int?
    var skip: Int?
    var skipToken: [EntityKey.KeyValue]?
    var inlineCount = false
    /// Non-system options (`sap-client=100`), passed on in `__next` links.
    var custom: [(name: String, value: String)] = []

    /// Parses `a=1&b=2` (percent-encoded; `+` is not a space). Unknown `$` options and repeated options are 400.
    init(query: String?) throws(ServiceError) {
        guard let query, !query.isEmpty else { return }
        var seen: Set<String> = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentEncoding.decode(parts[0])
            let value = parts.count > 1 ? PercentEncoding.decode(parts[1]) : ""
            guard name.hasPrefix("$") else {
                custom.append((name, value))
                continue
            }
            guard seen.insert(name).inserted else { throw .badRequest("The query option \(name) is given twice.") }
            try apply(name, value)
        }
        if skipToken != nil, skip != nil { skip = nil }
    }

    private mutating func apply(_ name: String, _ value: String) throws(ServiceError) {
        switch name {
        case "$expand": expand = Self.list(value)
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
        case "$inlinecount":
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
        case "$links", "$batch", "$callback":
            throw .notImplemented("\(name) is not supported by this service.")
        default:
            throw .badRequest("Unknown system query option \(name).")
        }
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
