/// A parsed JSON document, kept lossless enough for OData.
///
/// Numbers keep their source text so that `Edm.Int64` and `Edm.Decimal`
/// values above 2^53 survive; objects keep their member order so that
/// properties appear as the server sent them.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number, as the exact text the document held (e.g. `"9007199254740993"`, `"-1.50e3"`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The member named `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON object whose members keep the order they had in the document.
///
/// OData entities are small (tens of members), so a linear lookup beats
/// hashing every key of every entity during ingest.
public struct JSONObject: Sendable, Equatable {
    /// One `"key": value` member.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public var members: [Member]

    public init(members: [Member] = []) {
        self.members = members
    }

    /// The value of the first member named `key`.
    public subscript(key: String) -> JSONValue? {
        for member in members where member.key == key {
            return member.value
        }
        return nil
    }
}
