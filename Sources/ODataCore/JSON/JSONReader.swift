/// Reads JSON text into ``JSONValue``s without ever trapping.
///
/// Differences from a strict RFC 8259 reader, all deliberate:
/// * raw control characters inside strings are accepted (servers send them;
///   the terminal's sanitiser makes them harmless later);
/// * invalid UTF-8 and lone surrogates become U+FFFD instead of failing;
/// * nesting is limited to ``maximumDepth`` so that hostile input cannot
///   exhaust the stack.
///
/// Tokenizing is done by the same ``JSONTape`` the OData decoder reads directly;
/// this type builds a tree from it for callers that want one (error bodies, tests).
public struct JSONReader: Sendable {
    /// How deep arrays and objects may nest before the document is refused.
    public var maximumDepth: Int

    public init(maximumDepth: Int = 128) {
        self.maximumDepth = maximumDepth
    }

    /// Parses a complete document; trailing non-space bytes are an error.
    public func read(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        let tape = try JSONTape(Array(bytes), maximumDepth: maximumDepth)
        return Self.materialise(tape, 0)
    }

    /// Parses a complete document held in a string.
    public func read(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try read(Array(text.utf8))
    }

    /// The tree of node `index` (depth is bounded by the tape's own limit).
    static func materialise(_ tape: JSONTape, _ index: Int) -> JSONValue {
        switch tape[index].kind {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .number: return .number(tape.string(index))
        case .string: return .string(tape.string(index))
        case .array:
            var elements: [JSONValue] = []
            elements.reserveCapacity(Int(tape[index].count))
            var child = tape.firstChild(index)
            for _ in 0..<tape[index].count {
                elements.append(materialise(tape, child))
                child = tape.after(child)
            }
            return .array(elements)
        case .object:
            var members: [JSONObject.Member] = []
            members.reserveCapacity(Int(tape[index].count))
            var child = tape.firstChild(index)
            for _ in 0..<tape[index].count {
                members.append(JSONObject.Member(key: tape.string(child), value: materialise(tape, child + 1)))
                child = tape.after(child + 1)
            }
            return .object(JSONObject(members: members))
        }
    }
}

/// Why a document is not JSON, and where.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset of the problem in the document.
    public var offset: Int
    public var reason: String

    public var description: String { "Invalid JSON at byte \(offset): \(reason)." }
}
