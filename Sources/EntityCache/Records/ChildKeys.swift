import ODataCore

/// The ordered child keys of one relation, stored as a JSON array of strings.
///
/// JSON rather than a private binary form so that SQLite can read it too: the v2 migration
/// builds it with `json_group_array`, and integrity checks walk it with `json_each`.
/// Keys are written as the client writes every JSON string (`ODataCore.JSONEscaping`), which SQLite's JSON
/// functions and the decoder below both read, so any canonical key round-trips.
enum ChildKeys {
    /// `["Car(1)","Car(2)"]` for `["Car(1)", "Car(2)"]`.
    static func encode(_ keys: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(keys.reduce(2) { $0 + $1.utf8.count + 3 })
        bytes.append(UInt8(ascii: "["))
        for (index, key) in keys.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONEscaping.appendString(key, to: &bytes)
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
}
