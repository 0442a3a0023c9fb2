/// Builds a ``JSONTape``: a recursive-descent tokenizer that never traps.
///
/// Lenient where servers are sloppy (raw control characters inside strings are kept for the
/// terminal's sanitiser; invalid UTF-8 becomes U+FFFD when read), strict about structure,
/// and bounded in depth so hostile input cannot exhaust the stack.
struct TapeBuilder {
    let maximumDepth: Int
    var nodes: [JSONTape.Node] = []
    var index = 0

    init(maximumDepth: Int) {
        self.maximumDepth = maximumDepth
    }

    func error(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: index, reason: reason)
    }

    mutating func parseDocument(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) {
        skipSpace(bytes)
        try value(bytes, depth: 0)
        skipSpace(bytes)
        if index < bytes.count { throw error("unexpected text after the end of the JSON value") }
    }

    @inline(__always) mutating func skipSpace(_ bytes: UnsafeBufferPointer<UInt8>) {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func append(_ kind: JSONTape.Kind, _ start: Int, _ end: Int, escaped: Bool = false) {
        nodes.append(
            JSONTape.Node(kind: kind, escaped: escaped, start: UInt32(start), end: UInt32(end), count: 0, next: 0))
    }

    mutating func value(_ bytes: UnsafeBufferPointer<UInt8>, depth: Int) throws(JSONSyntaxError) {
        guard index < bytes.count else { throw error("the document ends where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try container(bytes, depth: depth + 1, object: true)
        case UInt8(ascii: "["): try container(bytes, depth: depth + 1, object: false)
        case UInt8(ascii: "\""): try string(bytes)
        case UInt8(ascii: "t"): try word(bytes, "true", .true)
        case UInt8(ascii: "f"): try word(bytes, "false", .false)
        case UInt8(ascii: "n"): try word(bytes, "null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number(bytes)
        default: throw error("unexpected character \(describe(bytes[index])) where a value was expected")
        }
    }

    mutating func word(
        _ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString, _ kind: JSONTape.Kind
    ) throws(JSONSyntaxError) {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("the document ends inside a literal") }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] {
            throw error("unknown literal (expected \(text))")
        }
        append(kind, index, index + count)
        index += count
    }

    mutating func container(_ bytes: UnsafeBufferPointer<UInt8>, depth: Int, object: Bool) throws(JSONSyntaxError) {
        guard depth <= maximumDepth else { throw error("objects and arrays nest deeper than \(maximumDepth) levels") }
        let slot = nodes.count
        append(object ? .object : .array, index, index)
        let close = object ? UInt8(ascii: "}") : UInt8(ascii: "]")
        let what = object ? "an object" : "an array"
        index += 1
        var count: UInt32 = 0
        skipSpace(bytes)
        if index < bytes.count, bytes[index] == close {
            index += 1
        } else {
            while true {
                skipSpace(bytes)
                if object {
                    guard index < bytes.count else { throw error("the document ends inside an object") }
                    guard bytes[index] == UInt8(ascii: "\"") else {
                        throw error("an object member name must be a string")
                    }
                    try string(bytes)
                    skipSpace(bytes)
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                        throw error("expected ':' after a member name")
                    }
                    index += 1
                    skipSpace(bytes)
                }
                try value(bytes, depth: depth)
                count += 1
                skipSpace(bytes)
                guard index < bytes.count else { throw error("the document ends inside \(what)") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == close {
                    index += 1
                    break
                } else {
                    throw error(
                        "expected ',' or '\(Character(Unicode.Scalar(close)))' in \(what), found \(describe(bytes[index]))"
                    )
                }
            }
        }
        nodes[slot].end = UInt32(index)
        nodes[slot].count = count
        nodes[slot].next = UInt32(nodes.count)
    }

    mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) {
        index += 1
        let start = index
        var escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                append(.string, start, index, escaped: escaped)
                index += 1
                return
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                index += 1
                guard index < bytes.count else { break }
                try checkEscape(bytes)
                continue
            }
            index += 1
        }
        throw error("the document ends inside a string")
    }

    /// Validates the escape after a backslash (its meaning is decoded later, when read).
    mutating func checkEscape(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) {
        switch bytes[index] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 1
        case UInt8(ascii: "u"):
            guard index + 5 <= bytes.count else { throw error("the document ends inside a \\u escape") }
            for offset in 1...4 where JSONEscapes.hexValue(bytes[index + offset]) == nil {
                throw error("a \\u escape needs four hex digits")
            }
            index += 5
        default:
            throw error("unknown escape \\\(describe(bytes[index]))")
        }
    }

    mutating func number(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        skipDigits(bytes)
        guard index > integerStart else { throw error("a number needs digits") }
        if bytes[integerStart] == UInt8(ascii: "0"), index - integerStart > 1 {
            throw error("a number may not start with 0")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            skipDigits(bytes)
            guard index > fractionStart else { throw error("a number needs digits after '.'") }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            let exponentStart = index
            skipDigits(bytes)
            guard index > exponentStart else { throw error("a number needs digits in its exponent") }
        }
        append(.number, start, index)
    }

    @inline(__always) mutating func skipDigits(_ bytes: UnsafeBufferPointer<UInt8>) {
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
    }

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }
}
