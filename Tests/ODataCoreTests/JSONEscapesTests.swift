import Foundation
import Testing

@testable import ODataCore

@Suite struct JSONEscapesTests {
    @Test func every_escape_form_decodes() throws {
        // Given a string using each escape, a surrogate pair, multi-byte text and runs between escapes
        let json = #"["a\"b\\c\/d\be\ff\ng\rh\ti\u00e9j\u20ACk\uD83D\uDE97l Zoë 🚗 end"]"#
        // When it is read
        let value = try JSONReader().read(json)
        // Then every escape has its meaning and the plain runs are intact
        #expect(value == .array([.string("a\"b\\c/d\u{8}e\u{C}f\ng\rh\ti\u{E9}j\u{20AC}k\u{1F697}l Zoë 🚗 end")]))
    }

    @Test func strings_escaped_by_foundation_read_back_the_same() throws {
        // Given 500 random strings over ASCII, control characters, quotes, slashes and non-ASCII scalars
        var generator = SplitMix64(seed: 0xCA7D)
        let alphabet: [Character] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{1}", "\u{1F}", "é", "€", "🚗", "'"]
        for _ in 0..<500 {
            let length = Int(generator.next() % 40)
            let text = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            // When Foundation writes it as JSON and the tape reader reads it back
            let bytes = try JSONSerialization.data(withJSONObject: [text])
            let value = try JSONReader().read(Array(bytes))
            // Then the text is unchanged
            #expect(value == .array([.string(text)]), "\(text.debugDescription)")
        }
    }
}

/// A small deterministic generator so failures repeat.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
