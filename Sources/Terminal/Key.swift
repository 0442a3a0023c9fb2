/// One decoded input event: a key, a mouse wheel step, or a terminal resize.
///
/// Produced by ``KeyDecoder`` from ncurses' `get_wch` results (``CursesTerminal``) or injected
/// directly (``HeadlessTerminal``).
public enum Key: Hashable, Sendable {
    case up, down, left, right
    case pageUp, pageDown, home, end
    /// Return / Enter / keypad Enter.
    case enter
    /// A lone Esc (ncurses' ESC delay is kept short so this arrives at once).
    case escape
    /// Backspace, whether the terminal sends DEL (0x7F), BS (0x08) or `KEY_BACKSPACE`.
    case backspace
    /// Forward delete (`KEY_DC`).
    case delete
    case tab
    /// Shift-Tab (`KEY_BTAB`).
    case backTab
    /// A printable character (never a control character).
    case char(Character)
    /// A control chord, as its lowercase letter: Ctrl-C is `.ctrl("c")`. Ctrl-@ is `.ctrl("@")`.
    case ctrl(Character)
    /// The terminal changed size; read ``TerminalDriver/size`` again and redraw in full.
    case resize
    case mouseWheelUp
    case mouseWheelDown
    /// The left button pressed at a cell (row and column from the top left, 0-based).
    case click(row: Int, column: Int)
    /// F1…F63 as `.function(1)`…
    case function(Int)
    /// Anything else (unmapped function keys, mouse clicks).
    case unknown
}
