/// Percent-encoding for the pieces of an OData URL.
///
/// OData v2 servers are picky: some ignore `%24top`, some reject `+` for a
/// space. So `$` stays literal, spaces become `%20`, and everything that could
/// end a segment or a query value (`/ % ? # & +`) or is not ASCII is encoded.
public enum PercentEncoding {
    /// Characters left as they are inside a path segment (key predicates included).
    static let pathSafe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$'()*,;=:@".utf8)
    /// Characters left as they are in a segment's name (no parentheses or quotes: those delimit keys).
    static let nameSafe = pathSafe.subtracting("()'".utf8)
    /// Characters left as they are inside a query option value.
    static let querySafe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$'()*,;=:@/".utf8)

    /// Encodes a path segment (an entity set, navigation or key predicate).
    public static func encodePathSegment(_ text: String) -> String { encode(text, keeping: pathSafe) }

    /// Encodes the name part of a path segment (entity set, navigation property).
    public static func encodeSegmentName(_ text: String) -> String { encode(text, keeping: nameSafe) }

    /// Encodes a query option value (`$filter` text, a skip token).
    public static func encodeQueryValue(_ text: String) -> String { encode(text, keeping: querySafe) }

    static func encode(_ text: String, keeping safe: Set<UInt8>) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if safe.contains(byte) {
                result.append(byte)
            } else {
                result.append(UInt8(ascii: "%"))
                result.append(hex[Int(byte >> 4)])
                result.append(hex[Int(byte & 0xF)])
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Decodes `%XX` escapes; a malformed escape is kept as it is. `+` is not a space.
    public static func decode(_ text: some StringProtocol) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "%")) else { return String(text) }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                result.append(high << 4 | low)
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
