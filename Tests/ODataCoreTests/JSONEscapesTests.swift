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
        // Given 500 strings spelt from ASCII, control characters, quotes, slashes and non-ASCII scalars
        // (string n spells n² × 7,919 + n in base 15, a character per digit: up to 9 characters)
        let alphabet: [Character] = [
            "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{1}", "\u{1F}", "é", "€", "🚗", "'",
        ]
        for n in 0..<500 {
            var digits = n * n * 7_919 + n
            var text = ""
            repeat {
                text.append(alphabet[digits % alphabet.count])
                digits /= alphabet.count
            } while digits > 0
            // When Foundation writes it as JSON and the tape reader reads it back
            let bytes = try JSONSerialization.data(withJSONObject: [text])
            let value = try JSONReader().read(Array(bytes))
            // Then the text is unchanged
            #expect(value == .array([.string(text)]), "\(text.debugDescription)")
        }
    }
}
