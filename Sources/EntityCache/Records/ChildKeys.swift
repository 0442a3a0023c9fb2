import ODataCore

/// The ordered child keys of one relation, stored as a JSON array of strings.
///
/// JSON rather than a private binary form so that SQLite can read it too: the v2 migration
/// builds it with `json_group_array`, and integrity checks walk it with `json_each`.
/// Keys are written with the escapes SQLite's JSON functions use (`\"`, `\\`, and `\u00XX`
/// for control characters), so any canonical key round-trips.
enum ChildKeys {
    /// `["Car(1)","Car(2)"]` for `["Car(1)", "Car(2)"]`.
    static func encode(_ keys: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(keys.reduce(2) { $0 + $1.utf8.count + 3 })
        bytes.append(UInt8(ascii: "["))
        for (index, key) in keys.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            for byte in key.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    bytes.append(UInt8(ascii: "\\"))
                    bytes.append(byte)
                case 0..<0x20:
                    bytes.append(contentsOf: Array("\\u00".utf8))
                    bytes.append(hexDigit(byte >> 4))
                    bytes.append(hexDigit(byte & 0xF))
                default:
                    bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "]"))
        return bytes
    }

    /// The keys in order; nil when the text is not a JSON array of strings (a damaged row reads
    /// as an unknown relation, which the fetcher then fetches again).
    static func decode(_ text: String) -> [String]? {
        guard case .array(let elements)? = try? JSONReader(maximumDepth: 2).read(text) else { return nil }
        var keys: [String] = []
        keys.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let key) = element else { return nil }
            keys.append(key)
        }
        return keys
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
