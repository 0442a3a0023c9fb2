/// JSON string literals as the client writes them: request bodies, `$batch` envelopes, the cache's lists of keys.
/// One escaper for all of them. (The demo service writes its own, WCF's way, with `/` as `\/`.)
public enum JSONEscaping {
    /// `text` as a JSON string literal, quotes included.
    public static func string(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        appendString(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal, quotes included: `"`, `\` and every control character escaped (the
    /// usual short forms where JSON has one), and DEL, U+2028 and U+2029 as `\u` escapes too (JavaScript readers
    /// and line-based logs take the last two for line ends).
    public static func appendString(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        bytes.append(UInt8(ascii: "\""))
        text.withUTF8 { utf8 in
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    bytes.append(UInt8(ascii: "\\"))
                    bytes.append(byte)
                case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
                case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
                case 0..<0x20, 0x7F:
                    appendEscape(UInt16(byte), to: &bytes)
                case 0xE2
                where index + 2 < utf8.count && utf8[index + 1] == 0x80
                    && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9):
                    appendEscape(utf8[index + 2] == 0xA8 ? 0x2028 : 0x2029, to: &bytes)
                    index += 2
                default:
                    bytes.append(byte)
                }
                index += 1
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `\uXXXX`, lowercase hex.
    private static func appendEscape(_ unit: UInt16, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
        for shift in stride(from: 12, through: 0, by: -4) {
            bytes.append(hexDigits[Int((unit >> UInt16(shift)) & 0xF)])
        }
    }
}
