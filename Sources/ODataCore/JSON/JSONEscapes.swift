/// Decoding of JSON string escapes (`\n`, `\u00e9`, surrogate pairs).
enum JSONEscapes {
    /// The text of an escaped string body (validated by the tokenizer). Lone surrogates
    /// become U+FFFD; invalid UTF-8 is repaired the same way.
    static func unescape(_ body: ArraySlice<UInt8>) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(body.count)
        var index = body.startIndex
        while index < body.endIndex {
            let byte = body[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < body.endIndex else {
                utf8.append(byte)
                index += 1
                continue
            }
            let escape = body[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(body, index)
                index += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    if index + 5 < body.endIndex, body[index] == UInt8(ascii: "\\"), body[index + 1] == UInt8(ascii: "u"),
                       case let low = hex4(body, index + 2), (0xDC00...0xDFFF).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        index += 6
                    } else {
                        scalar = 0xFFFD
                    }
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    scalar = 0xFFFD
                }
                let unicode = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                utf8.append(contentsOf: String(Character(unicode)).utf8)
            default:
                utf8.append(escape) // \" \\ \/
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Four hex digits at `index` (validated by the tokenizer; a short or bad run reads as U+FFFD).
    static func hex4(_ body: ArraySlice<UInt8>, _ index: Int) -> UInt32 {
        guard index + 4 <= body.endIndex else { return 0xFFFD }
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard let digit = hexValue(body[index + offset]) else { return 0xFFFD }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
