/// A minimal XML element tree, enough for EDMX and XML error bodies.
///
/// Pure Swift (no libxml2) so that the parser can be fuzzed byte by byte and
/// never touches the file system or the network (no DTDs, no external entities).
struct XMLNode: Sendable {
    /// Local name (prefix stripped): `EntityType` for `edm:EntityType`.
    var name: String
    /// Attributes in document order, by their name as written, prefix included (`m:HasStream`). (A list: an
    /// element has a handful, and a search of a few beats a dictionary built for each of a million elements.)
    var attributes: [(key: String, value: String)]
    var children: [XMLNode]
    /// Concatenated character data directly inside this element.
    var text: String
    /// Byte offset where the element starts, for error messages (see ``XMLReader/line(of:in:)``).
    var offset: Int

    func attribute(_ name: String) -> String? {
        for attribute in attributes where attribute.key == name { return attribute.value }
        // Accept any namespace prefix (`m:IsDefaultEntityContainer`, `metadata:…`).
        for (key, value) in attributes where Self.isPrefixed(key, name) { return value }
        return nil
    }

    /// Whether `key` is `name` after a namespace prefix (`m:HasStream` for `HasStream`), without building the text.
    static func isPrefixed(_ key: String, _ name: String) -> Bool {
        let key = key.utf8
        let name = name.utf8
        guard key.count > name.count, key.reversed().starts(with: name.reversed()) else { return false }
        return key[key.index(key.endIndex, offsetBy: -name.count - 1)] == UInt8(ascii: ":")
    }

    func children(named name: String) -> [XMLNode] { children.filter { $0.name == name } }
    func child(named name: String) -> XMLNode? { children.first { $0.name == name } }
}

/// Why an XML document could not be read, and where.
public struct XMLSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var reason: String

    public var description: String { "Invalid XML at line \(line), column \(column): \(reason)." }
}

/// Reads an XML document into an ``XMLNode`` tree.
struct XMLReader {
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        // A UTF-8 byte-order mark is allowed.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    static func parse(_ bytes: [UInt8]) throws(XMLSyntaxError) -> XMLNode {
        var reader = XMLReader(bytes)
        return try reader.document()
    }

    /// The 1-based line of a byte offset.
    static func line(of offset: Int, in bytes: [UInt8]) -> Int {
        1 + bytes[..<min(offset, bytes.count)].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    private func position(_ at: Int) -> (Int, Int) {
        var line = 1
        var column = 1
        for byte in bytes[..<min(at, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }

    private func error(_ reason: String) -> XMLSyntaxError {
        let (line, column) = position(index)
        return XMLSyntaxError(line: line, column: column, reason: reason)
    }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return text.withUTF8Buffer { utf8 in
            for offset in 0..<count where bytes[index + offset] != utf8[offset] { return false }
            return true
        }
    }

    private mutating func skip(past terminator: String, what: String) throws(XMLSyntaxError) {
        let utf8 = Array(terminator.utf8)
        while index + utf8.count <= bytes.count {
            if bytes[index] == utf8[0], Array(bytes[index..<index + utf8.count]) == utf8 {
                index += utf8.count
                return
            }
            index += 1
        }
        throw error("the document ends inside \(what)")
    }

    private mutating func skipMisc() throws(XMLSyntaxError) {
        while index < bytes.count {
            if isSpace(bytes[index]) {
                index += 1
            } else if starts(with: "<?") {
                try skip(past: "?>", what: "a processing instruction")
            } else if starts(with: "<!--") {
                try skip(past: "-->", what: "a comment")
            } else if starts(with: "<!DOCTYPE") {
                try skipDoctype()
            } else {
                return
            }
        }
    }

    private mutating func skipDoctype() throws(XMLSyntaxError) {
        var depth = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ">") where depth <= 0:
                index += 1
                return
            default: break
            }
            index += 1
        }
        throw error("the document ends inside a DOCTYPE")
    }

    private mutating func document() throws(XMLSyntaxError) -> XMLNode {
        try skipMisc()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "<") else { throw error("expected a root element") }
        let root = try element(depth: 1)
        try skipMisc()
        guard index == bytes.count else { throw error("unexpected content after the root element") }
        return root
    }

    private mutating func element(depth: Int) throws(XMLSyntaxError) -> XMLNode {
        guard depth <= Self.maximumDepth else { throw error("elements nest deeper than \(Self.maximumDepth) levels") }
        let offset = index
        index += 1  // "<"
        let nameStart = index
        let qualified = try name()
        var localStart = nameStart
        for at in nameStart..<index where bytes[at] == UInt8(ascii: ":") { localStart = at + 1 }
        let local = localStart == nameStart ? qualified : String(decoding: bytes[localStart..<index], as: UTF8.self)
        var node = XMLNode(name: local, attributes: [], children: [], text: "", offset: offset)
        while true {
            skipSpace()
            guard index < bytes.count else { throw error("the document ends inside the tag <\(qualified)>") }
            if bytes[index] == UInt8(ascii: "/") {
                guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ">") else {
                    throw error("expected '/>'")
                }
                index += 2
                return node
            }
            if bytes[index] == UInt8(ascii: ">") {
                index += 1
                break
            }
            let attributeName = try name()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                throw error("expected '=' after the attribute \(attributeName)")
            }
            index += 1
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                throw error("an attribute value must be quoted")
            }
            let quote = bytes[index]
            index += 1
            let start = index
            while index < bytes.count, bytes[index] != quote {
                guard bytes[index] != UInt8(ascii: "<") else { throw error("'<' inside an attribute value") }
                index += 1
            }
            guard index < bytes.count else { throw error("the document ends inside an attribute value") }
            let value = try decodeEntities(bytes[start..<index])
            // (a name written twice: the last, as a dictionary kept it)
            if let twice = node.attributes.firstIndex(where: { $0.key == attributeName }) {
                node.attributes[twice].value = value
            } else {
                node.attributes.append((attributeName, value))
            }
            index += 1
        }
        // Content.
        var text: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("the element <\(qualified)> is never closed") }
            if bytes[index] != UInt8(ascii: "<") {
                let start = index
                var entity = false
                while index < bytes.count, bytes[index] != UInt8(ascii: "<") {
                    if bytes[index] == UInt8(ascii: "&") { entity = true }
                    index += 1
                }
                if entity {
                    text.append(contentsOf: Array(try decodeEntities(bytes[start..<index]).utf8))
                } else {
                    text.append(contentsOf: bytes[start..<index])
                }
            } else if starts(with: "</") {
                index += 2
                let closing = try name()
                guard closing == qualified else { throw error("</\(closing)> closes <\(qualified)>") }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { throw error("expected '>'") }
                index += 1
                // (the indentation between an element's children is no text of its)
                if node.children.isEmpty || !text.allSatisfy(isSpace) {
                    node.text = String(decoding: text, as: UTF8.self)
                }
                return node
            } else if starts(with: "<!--") {
                try skip(past: "-->", what: "a comment")
            } else if starts(with: "<![CDATA[") {
                index += 9
                let start = index
                try skip(past: "]]>", what: "a CDATA section")
                text.append(contentsOf: bytes[start..<index - 3])
            } else if starts(with: "<?") {
                try skip(past: "?>", what: "a processing instruction")
            } else {
                node.children.append(try element(depth: depth + 1))
            }
        }
    }

    private mutating func name() throws(XMLSyntaxError) -> String {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if isSpace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=")
                || byte == UInt8(ascii: "<") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
            {
                break
            }
            index += 1
        }
        guard index > start else { throw error("expected a name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func skipSpace() {
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
    }

    private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// Replaces the five predefined entities and character references.
    private func decodeEntities(_ slice: ArraySlice<UInt8>) throws(XMLSyntaxError) -> String {
        guard slice.contains(UInt8(ascii: "&")) else { return String(decoding: slice, as: UTF8.self) }
        var result = ""
        var rest = Substring(String(decoding: slice, as: UTF8.self))
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semicolon) <= 12 else {
                throw error("an '&' that starts no entity")
            }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "lt": result += "<"
            case "gt": result += ">"
            case "amp": result += "&"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                var code: UInt32?
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                    code = UInt32(entity.dropFirst(2), radix: 16)
                } else if entity.hasPrefix("#") {
                    code = UInt32(entity.dropFirst())
                }
                guard let code, let scalar = Unicode.Scalar(code) else { throw error("unknown entity &\(entity);") }
                result.unicodeScalars.append(scalar)
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }
}
