/// The identity of one entity: its entity set and key values.
///
/// ``canonical`` is the one cache key for an entity, whatever form the server
/// used: `Person(1)` whether the URI said `Person(1)`, `Person(1L)` or
/// `Person(personID=1)`; composite keys are ordered by property name.
public struct EntityKey: Sendable, Hashable, CustomStringConvertible {
    public let entitySet: String
    /// Key values; `name` is nil for the short single-key form `Set(1)`.
    public let values: [KeyValue]
    /// `Set(predicate)` with canonical literals and no percent-encoding: the cache key. Worked out once, when the
    /// key is made: the cache writes and reads it several times per entity.
    public let canonical: String

    /// One key property and its value.
    public struct KeyValue: Sendable, Hashable {
        public var name: String?
        public var value: ODataValue

        public init(name: String?, value: ODataValue) {
            self.name = name
            self.value = value
        }
    }

    public init(entitySet: String, values: [KeyValue]) {
        self.entitySet = entitySet
        self.values = values
        // (no values: a singleton's entity, named by the singleton alone)
        canonical = values.isEmpty ? entitySet : entitySet + "(" + KeyPredicate.canonical(values) + ")"
    }

    /// The key of a singleton's one entity (v4, issue 37): its name, `Me`; the entities it contains are under it,
    /// `Me/Trips(1)`.
    public init(singleton name: String) {
        self.init(entitySet: name, values: [])
    }

    /// Whether this names a singleton's entity (``init(singleton:)``).
    public var isSingleton: Bool { values.isEmpty }

    /// A single-valued key.
    public init(entitySet: String, value: ODataValue) {
        self.init(entitySet: entitySet, values: [KeyValue(name: nil, value: value)])
    }

    /// The key whose ``canonical`` text is `text` (`Person(1)`, `OrderLine(LineNumber=10,OrderID=1)`), as the cache
    /// stores it: no percent-encoding, quotes doubled inside strings. Nil when `text` is not of that form.
    public init?(canonical text: some StringProtocol) {
        // A contained entity's: `Person(1)/Trips(2)`, the path to it (see ``Containment``).
        if let slash = Self.lastSegmentStart(Substring(text)) {
            let container = Substring(text)[..<slash]
            // (the container may be a singleton's entity, named alone: `Me/Trips(2)`)
            guard let last = EntityKey(canonical: Substring(text)[Substring(text).index(after: slash)...]),
                !container.isEmpty,
                EntityKey(canonical: container) != nil || KeyPredicate.isIdentifier(String(container))
            else { return nil }
            self.init(entitySet: container + "/" + last.entitySet, values: last.values)
            return
        }
        let scalars = Substring(text).unicodeScalars
        guard scalars.last == ")", let open = scalars.firstIndex(of: "("), open > scalars.startIndex else { return nil }
        let name = String(Substring(scalars[..<open]))
        guard
            name.utf8.allSatisfy({
                $0 >= 0x80 || $0 == 0x5F || $0 == 0x2E || (0x30...0x39).contains($0)
                    || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            }),
            name.utf8.allSatisfy({ $0 < 0x80 })
                || name.split(separator: ".").allSatisfy({ KeyPredicate.isIdentifier(String($0)) })
        else { return nil }
        let inner = Substring(scalars[scalars.index(after: open)..<scalars.index(before: scalars.endIndex)])
        // The common key, an integer, without the general literal parser.
        if let number = Int64(inner), String(number) == inner {
            self.init(entitySet: name, value: .int(number))
            return
        }
        guard let values = KeyPredicate.parse(inner) else { return nil }
        self.init(entitySet: name, values: values)
    }

    /// The key a cache row holds: a ``canonical`` text, or a singleton's name alone (``init(singleton:)``), which
    /// text from elsewhere never stands for.
    public init?(stored text: some StringProtocol) {
        if KeyPredicate.isIdentifier(String(text)) {
            self.init(singleton: String(text))
            return
        }
        self.init(canonical: text)
    }

    public var description: String { canonical }

    /// Where the last segment of `text` starts (its `/`), outside quotes and parentheses; nil for one segment.
    static func lastSegmentStart(_ text: Substring) -> Substring.Index? {
        guard text.utf8.contains(UInt8(ascii: "/")) else { return nil }
        var depth = 0
        var inQuote = false
        var found: Substring.Index?
        var index = text.unicodeScalars.startIndex
        while index < text.unicodeScalars.endIndex {
            switch text.unicodeScalars[index] {
            case "'": inQuote.toggle()
            case "(" where !inQuote: depth += 1
            case ")" where !inQuote: depth -= 1
            case "/" where !inQuote && depth == 0: found = index
            default: break
            }
            index = text.unicodeScalars.index(after: index)
        }
        return found
    }

    /// A key for an entity made here and not yet created on the service (`Car('~new-1f3a…')`): it names the
    /// entity in the cache, its lists and the queued writes until the service's key replaces it everywhere. It
    /// is never sent to the service.
    public static func temporary(in entitySet: String) -> EntityKey {
        let id = UInt64.random(in: 0...UInt64.max)
        return EntityKey(entitySet: entitySet, value: .string(temporaryPrefix + String(id, radix: 16)))
    }

    /// Whether this names an entity not yet created on the service (see ``temporary(in:)``).
    public var isTemporary: Bool {
        guard values.count == 1, case .string(let text) = values[0].value else { return false }
        return text.hasPrefix(Self.temporaryPrefix)
    }

    /// A key for one invocation of an action on a list of `entitySet` (`Car('~call-1f3a…')`), or on the service
    /// when nil (`_service('~call-…')`): what the outbox queues it under. It names no entity and is never sent.
    public static func call(on entitySet: String?) -> EntityKey {
        let id = UInt64.random(in: 0...UInt64.max)
        return EntityKey(entitySet: entitySet ?? serviceCallSet, value: .string(callPrefix + String(id, radix: 16)))
    }

    /// Whether this names an invocation on a list or on the service (see ``call(on:)``), not an entity.
    public var isCall: Bool {
        guard values.count == 1, case .string(let text) = values[0].value else { return false }
        return text.hasPrefix(Self.callPrefix)
    }

    /// The entity set a call on a list is made on; nil for a call on the service, or a key that is no call.
    public var callSet: String? { isCall && entitySet != Self.serviceCallSet ? entitySet : nil }

    static let callPrefix = "~call-"
    static let serviceCallSet = "_service"

    /// What a temporary key's canonical text contains (`'~new-`), for finding them in stored text.
    public static let temporaryMarker = "'" + temporaryPrefix
    static let temporaryPrefix = "~new-"
}

/// Key predicates: the `(…)` after an entity set name.
public enum KeyPredicate {
    /// The canonical predicate text: one value alone, or `A=1,B='x'` sorted by name.
    static func canonical(_ values: [EntityKey.KeyValue]) -> String {
        if values.count == 1 { return canonicalLiteral(values[0].value) }
        return values.sorted { ($0.name ?? "") < ($1.name ?? "") }
            .map { ($0.name ?? "") + "=" + canonicalLiteral($0.value) }
            .joined(separator: ",")
    }

    /// Literals spelled so that equal values compare equal: integers without suffix,
    /// decimals canonical, strings quoted.
    static func canonicalLiteral(_ value: ODataValue) -> String {
        switch value {
        case .int(let number): return String(number)
        default: return ODataLiteral.format(value) ?? "null"
        }
    }

    /// The predicate as it goes into a URL path: literals typed by `types` (key property
    /// name → Edm type) when known, then percent-encoded.
    public static func urlText(
        _ values: [EntityKey.KeyValue], types: [String: EdmPrimitiveType] = [:], dialect: ODataDialect = .v2
    ) -> String {
        func literal(_ keyValue: EntityKey.KeyValue) -> String {
            let type = keyValue.name.flatMap { types[$0] } ?? (values.count == 1 ? types.values.first : nil)
            return ODataLiteral.format(keyValue.value, as: type, dialect: dialect) ?? "null"
        }
        let text: String
        if values.count == 1, values[0].name == nil || types.count <= 1 {
            text = literal(values[0])
        } else {
            text = values.map { ($0.name ?? "") + "=" + literal($0) }.joined(separator: ",")
        }
        return PercentEncoding.encodePathSegment(text)
    }

    /// Parses the (percent-decoded) text between the parentheses: `1`, `'O''Neil'`,
    /// `OrderID=1L,LineNumber=10`. Commas and `=` inside quoted strings are respected.
    /// Quotes, commas and `=` are found by Unicode scalar (see ``ResourcePath/splitSegments(_:)``).
    public static func parse(_ text: some StringProtocol) -> [EntityKey.KeyValue]? {
        var parts: [Substring] = []
        let scalars = Substring(text).unicodeScalars
        var current = scalars.startIndex
        var inQuote = false
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if scalar == "'" { inQuote.toggle() }
            if scalar == ",", !inQuote {
                parts.append(Substring(scalars[current..<index]))
                current = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        guard !inQuote else { return nil }
        parts.append(Substring(scalars[current...]))
        var values: [EntityKey.KeyValue] = []
        for part in parts {
            let trimmed = part.trimmingSpaces
            guard !trimmed.isEmpty else { return nil }
            if let equals = firstUnquoted("=", in: trimmed) {
                let scalars = trimmed.unicodeScalars
                let name = String(Substring(scalars[..<equals]).trimmingSpaces)
                guard isIdentifier(name),
                    let value = ODataLiteral.parse(Substring(scalars[scalars.index(after: equals)...]).trimmingSpaces)
                else { return nil }
                values.append(EntityKey.KeyValue(name: name, value: value))
            } else {
                guard parts.count == 1, let value = ODataLiteral.parse(trimmed) else { return nil }
                values.append(EntityKey.KeyValue(name: nil, value: value))
            }
        }
        return values.isEmpty ? nil : values
    }

    /// The index of the first `target` outside quotes, in `text.unicodeScalars`.
    static func firstUnquoted(_ target: Unicode.Scalar, in text: Substring) -> Substring.Index? {
        let scalars = text.unicodeScalars
        var inQuote = false
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if scalar == "'" { inQuote.toggle() } else if scalar == target, !inQuote { return index }
            index = scalars.index(after: index)
        }
        return nil
    }

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.first, first.isLetter || first == "_" else { return false }
        return text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }
}

extension StringProtocol {
    var trimmingSpaces: Substring {
        var slice = Substring(self)
        while slice.first == " " { slice = slice.dropFirst() }
        while slice.last == " " { slice = slice.dropLast() }
        return slice
    }
}
