import Foundation
import Testing

@testable import Terminal

@Suite struct OSC52Tests {
    @Test(arguments: ["", "a", "ab", "abc", "abcd", "Ærøskøbing-Łódź, Zoë 🚗", String(repeating: "xyz", count: 1000)])
    func base64_matches_rfc_4648(text: String) {
        let ours = String(decoding: OSC52.base64(Array(text.utf8)), as: UTF8.self)
        #expect(ours == Data(text.utf8).base64EncodedString())
    }

    @Test func the_sequence_is_osc_52_to_the_clipboard_ended_by_bel() {
        let sequence = OSC52.sequence(for: "hi")
        #expect(String(decoding: sequence, as: UTF8.self) == "\u{1B}]52;c;aGk=\u{07}")
    }

    @MainActor @Test func a_headless_terminal_records_what_was_copied() {
        let terminal = HeadlessTerminal()
        #expect(terminal.copyToClipboard("one"))
        #expect(terminal.copied == ["one"])
    }
}
