import CNcurses

/// Turns raw ncurses input into ``Key`` values: the one place where key codes are interpreted.
///
/// Pure apart from reading ncurses' constant key codes, so it is tested directly.
enum KeyDecoder {
    /// One result of `get_wch`, before interpretation.
    enum RawInput: Equatable, Sendable {
        /// `get_wch` returned `OK`: a character (Unicode scalar value) was read.
        case character(UInt32)
        /// `get_wch` returned `KEY_CODE_YES`: a function key code such as `KEY_UP`.
        case keyCode(Int32)
        /// A `KEY_MOUSE` event with its button state (`mmask_t`) and cell.
        case mouse(buttonState: UInt32, row: Int = 0, column: Int = 0)
    }

    /// Decodes one raw input.
    static func decode(_ raw: RawInput) -> Key {
        switch raw {
        case .character(let value):
            return decodeCharacter(value)
        case .keyCode(let code):
            return decodeKeyCode(code)
        case .mouse(let state, let row, let column):
            if state & UInt32(cd_button4_pressed()) != 0 { return .mouseWheelUp }
            if state & UInt32(cd_button5_pressed()) != 0 { return .mouseWheelDown }
            if state & UInt32(cd_button1_pressed()) != 0, row >= 0, column >= 0 {
                return .click(row: row, column: column)
            }
            return .unknown
        }
    }

    /// Characters: control bytes become named keys or `.ctrl`, the rest `.char`.
    static func decodeCharacter(_ value: UInt32) -> Key {
        switch value {
        case 0x09: return .tab
        case 0x0A, 0x0D: return .enter
        case 0x1B: return .escape
        case 0x08, 0x7F: return .backspace
        case 0x00: return .ctrl("@")
        case 0x01...0x1A:
            return .ctrl(Character(Unicode.Scalar(UInt8(0x60 + value))))
        case 0x1C...0x1F:
            return .ctrl(Character(Unicode.Scalar(UInt8(0x40 + value))))
        case 0x80...0x9F:
            return .unknown
        default:
            guard let scalar = Unicode.Scalar(value) else { return .unknown }
            return .char(Character(scalar))
        }
    }

    /// ncurses function key codes (`KEY_*`).
    static func decodeKeyCode(_ code: Int32) -> Key {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME, KEY_A1: return .home
        case KEY_END, KEY_C1: return .end
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_BTAB: return .backTab
        case KEY_RESIZE: return .resize
        case KEY_A3: return .pageUp
        case KEY_C3: return .pageDown
        default:
            let f0 = cd_key_f(0)
            if code > f0 && code <= f0 + 63 { return .function(Int(code - f0)) }
            return .unknown
        }
    }
}
