/// Lossless decimal numbers as text: validation and a canonical spelling.
public enum DecimalText {
    /// Canonical decimal text for `text` (`"0012.500"` → `"12.5"`, `"-0.0"` → `"0"`,
    /// `"1e3"` → `"1000"`), or nil if it is not a decimal number.
    public static func canonical(_ text: some StringProtocol) -> String? {
        if isAlreadyCanonical(text.utf8) { return String(text) }
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return nil }
        var negative = false
        if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") {
            negative = bytes[0] == UInt8(ascii: "-")
            bytes.removeFirst()
        }
        var exponent = 0
        if let e = bytes.firstIndex(where: { $0 | 0x20 == UInt8(ascii: "e") }) {
            guard let value = Int(String(decoding: bytes[(e + 1)...], as: UTF8.self)), abs(value) <= 400 else {
                return nil
            }
            exponent = value
            bytes.removeSubrange(e...)
        }
        var integer: [UInt8]
        var fraction: [UInt8]
        if let dot = bytes.firstIndex(of: UInt8(ascii: ".")) {
            integer = Array(bytes[..<dot])
            fraction = Array(bytes[(dot + 1)...])
        } else {
            integer = bytes
            fraction = []
        }
        guard !(integer.isEmpty && fraction.isEmpty),
            (integer + fraction).allSatisfy({ $0 &- UInt8(ascii: "0") < 10 })
        else { return nil }
        // Shift the decimal point by the exponent.
        while exponent > 0 {
            integer.append(fraction.isEmpty ? UInt8(ascii: "0") : fraction.removeFirst())
            exponent -= 1
        }
        while exponent < 0 {
            fraction.insert(integer.popLast() ?? UInt8(ascii: "0"), at: 0)
            exponent += 1
        }
        while integer.first == UInt8(ascii: "0") { integer.removeFirst() }
        while fraction.last == UInt8(ascii: "0") { fraction.removeLast() }
        if integer.isEmpty { integer = [UInt8(ascii: "0")] }
        var result = String(decoding: integer, as: UTF8.self)
        if !fraction.isEmpty { result += "." + String(decoding: fraction, as: UTF8.self) }
        if negative && result != "0" { result = "-" + result }
        return result
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?`: the common case, checked without allocating.
    static func isAlreadyCanonical(_ utf8: some Collection<UInt8>) -> Bool {
        var index = utf8.startIndex
        guard index != utf8.endIndex else { return false }
        if utf8[index] == UInt8(ascii: "-") { index = utf8.index(after: index) }
        guard index != utf8.endIndex else { return false }
        let leadingZero = utf8[index] == UInt8(ascii: "0")
        var integerDigits = 0
        while index != utf8.endIndex, utf8[index] &- UInt8(ascii: "0") < 10 {
            integerDigits += 1
            index = utf8.index(after: index)
        }
        guard integerDigits > 0, !(leadingZero && integerDigits > 1) else { return false }
        if index == utf8.endIndex { return !(leadingZero && utf8.first == UInt8(ascii: "-")) }
        guard utf8[index] == UInt8(ascii: ".") else { return false }
        index = utf8.index(after: index)
        var last: UInt8 = 0
        var fractionDigits = 0
        while index != utf8.endIndex {
            last = utf8[index]
            guard last &- UInt8(ascii: "0") < 10 else { return false }
            fractionDigits += 1
            index = utf8.index(after: index)
        }
        return fractionDigits > 0 && last != UInt8(ascii: "0")
    }
}
