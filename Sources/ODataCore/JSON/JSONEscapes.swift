/// Decoding of JSON string escapes (`\n`, `\u00e9`, surrogate pairs).
enum JSONEscapes {
    /// The text of an escaped string body (validated by the tokenizer). Lone surrogates
    /// become U+FFFD; invalid UTF-8 is repaired the same way.
    static func unescape(_ body: ArraySlice<UInt8>) -> String {
        // Escapes only ever shrink (`\/` → 1 byte, `\uXXXX` → at most 3, a surrogate pair's 12 → 4),
        // so the text is written straight into a string of the body's size; runs between escapes are
        // copied whole. The initialiser repairs invalid UTF-8 with U+FFFD.
        body.withUnsafeBufferPointer { input in
            String(unsafeUninitializedCapacity: max(input.count, 1)) { output in
                var read = 0
                var written = 0
                let end = input.count
                while read < end {
                    var run = read
                    while run < end, input[run] != UInt8(ascii: "\\") { run += 1 }
                    if run > read {
                        output.baseAddress!.advanced(by: written).update(
                            from: input.baseAddress!.advanced(by: read), count: run - read)
                        written += run - read
                    }
                    read = run
                    guard read + 1 < end else {
                        if read < end {  // a lone trailing backslash (never from the tokenizer): kept as is
                            output[written] = input[read]
                            written += 1
                            read += 1
                        }
                        break
                    }
                    let escape = input[read + 1]
                    read += 2
                    switch escape {
                    case UInt8(ascii: "b"): output[written] = 0x08
                    case UInt8(ascii: "f"): output[written] = 0x0C
                    case UInt8(ascii: "n"): output[written] = 0x0A
                    case UInt8(ascii: "r"): output[written] = 0x0D
                    case UInt8(ascii: "t"): output[written] = 0x09
                    case UInt8(ascii: "u"):
                        var scalar = hex4(input, read)
                        read += 4
                        if (0xD800...0xDBFF).contains(scalar) {
                            if read + 5 < end, input[read] == UInt8(ascii: "\\"), input[read + 1] == UInt8(ascii: "u"),
                                case let low = hex4(input, read + 2), (0xDC00...0xDFFF).contains(low)
                            {
                                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                                read += 6
                            } else {
                                scalar = 0xFFFD
                            }
                        } else if (0xDC00...0xDFFF).contains(scalar) {
                            scalar = 0xFFFD
                        }
                        for unit in UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}")! {
                            output[written] = unit
                            written += 1
                        }
                        continue
                    default:
                        output[written] = escape  // \" \\ \/
                    }
                    written += 1
                }
                return written
            }
        }
    }

    /// Four hex digits at `index` (validated by the tokenizer; a short or bad run reads as U+FFFD).
    static func hex4(_ body: UnsafeBufferPointer<UInt8>, _ index: Int) -> UInt32 {
        guard index + 4 <= body.count else { return 0xFFFD }
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
