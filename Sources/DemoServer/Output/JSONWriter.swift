/// Writes JSON text into a byte buffer, members in the order they are written.
///
/// Strings are escaped per RFC 8259 (`"`, `\`, control characters) and `/` is written as `\/`, as
/// WCF Data Services does, so dates read `"\/Date(…)\/"` in the raw text.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the next member or element needs a comma before it, per open container.
    private var needsComma: [Bool] = []

    init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }
    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma.removeLast()
    }
    mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }
    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma.removeLast()
    }

    /// Writes `"name":`; the value written next belongs to it.
    mutating func key(_ name: String) {
        separate()
        writeString(name)
        bytes.append(UInt8(ascii: ":"))
        pendingValueAfterKey = true
    }

    mutating func string(_ text: String) {
        separate()
        writeString(text)
    }
    mutating func number(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }
    mutating func raw(_ text: String) {
        separate()
        bytes.append(contentsOf: text.utf8)
    }
    mutating func null() { raw("null") }

    /// Set right after a key, so that its value is not preceded by a comma.
    private var pendingValueAfterKey = false

    private mutating func separate() {
        if pendingValueAfterKey {
            pendingValueAfterKey = false
        } else if let last = needsComma.last, last {
            bytes.append(UInt8(ascii: ","))
        }
        if !needsComma.isEmpty { needsComma[needsComma.count - 1] = true }
    }

    /// `text` as a JSON string literal, escaped as every string this writer writes.
    static func string(_ text: String) -> String {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.writeString(text)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private mutating func writeString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
            case UInt8(ascii: "/"): bytes.append(contentsOf: [92, 47])
            case 0x0A: bytes.append(contentsOf: [92, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [92, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
