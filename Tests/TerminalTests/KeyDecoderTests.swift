import Testing

@testable import Terminal

/// get_wch results to keys. Key codes are ncurses' ABI values from curses.h (KEY_UP = 0403 …),
/// written as numbers because only the Terminal module imports CNcurses.
@Suite struct KeyDecoderTests {
    func key(_ raw: KeyDecoder.RawInput) -> Key { KeyDecoder.decode(raw) }

    @Test func printable_characters_are_chars() {
        #expect(key(.character(0x6A)) == .char("j"))
        #expect(key(.character(0x65E5)) == .char("日"))
        #expect(key(.character(0x20)) == .char(" "))
    }

    @Test func control_bytes_become_named_keys_or_ctrl_chords() {
        #expect(key(.character(0x0D)) == .enter)
        #expect(key(.character(0x0A)) == .enter)
        #expect(key(.character(0x1B)) == .escape)
        #expect(key(.character(0x09)) == .tab)
        #expect(key(.character(0x7F)) == .backspace)
        #expect(key(.character(0x08)) == .backspace)
        #expect(key(.character(0x03)) == .ctrl("c"))
        #expect(key(.character(0x00)) == .ctrl("@"))
        #expect(key(.character(0x1F)) == .ctrl("_"))
        #expect(key(.character(0x9B)) == .unknown)
    }

    @Test func curses_key_codes_become_named_keys() {
        #expect(key(.keyCode(0o403)) == .up)
        #expect(key(.keyCode(0o402)) == .down)
        #expect(key(.keyCode(0o404)) == .left)
        #expect(key(.keyCode(0o405)) == .right)
        #expect(key(.keyCode(0o523)) == .pageUp)
        #expect(key(.keyCode(0o522)) == .pageDown)
        #expect(key(.keyCode(0o406)) == .home)
        #expect(key(.keyCode(0o550)) == .end)
        #expect(key(.keyCode(0o527)) == .enter)
        #expect(key(.keyCode(0o407)) == .backspace)
        #expect(key(.keyCode(0o512)) == .delete)
        #expect(key(.keyCode(0o541)) == .backTab)
        #expect(key(.keyCode(0o632)) == .resize)
    }

    @Test func function_keys_are_numbered() {
        #expect(key(.keyCode(0o410 + 1)) == .function(1))
        #expect(key(.keyCode(0o410 + 12)) == .function(12))
    }

    @Test func unmapped_codes_are_unknown() {
        #expect(key(.keyCode(0o777)) == .unknown)
    }

    @Test func wheel_buttons_become_wheel_keys() {
        #expect(key(.mouse(buttonState: 0x0001_0000)) == .mouseWheelUp)  // BUTTON4_PRESSED
        #expect(key(.mouse(buttonState: 0x0020_0000)) == .mouseWheelDown)  // BUTTON5_PRESSED
        #expect(key(.mouse(buttonState: 0x2, row: 3, column: 7)) == .click(row: 3, column: 7))  // BUTTON1_PRESSED
        #expect(key(.mouse(buttonState: 0x1)) == .unknown)  // BUTTON1_RELEASED
    }
}
