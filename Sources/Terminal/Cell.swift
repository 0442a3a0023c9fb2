/// One character cell of a ``ScreenBuffer``.
///
/// Holds what one terminal cell shows: a spacing scalar and the zero-width scalars joined to it
/// (a whole grapheme cluster such as `é` or `👨‍👩‍👧`, or one cell of a wider one such as the `ा`
/// of `भा`; see ``DisplayWidth/cells(of:)``). A two-column cell (CJK, emoji) is followed by an
/// ``isContinuation`` cell with empty text. Text in a cell is always sanitised.
public struct Cell: Hashable, Sendable {
    /// At most ``DisplayWidth/maxScalarsPerCell`` scalars, or `""` in the right half of a wide cell.
    public internal(set) var text: String
    /// The cell's look.
    public internal(set) var style: CellStyle
    /// How many columns ``text`` covers: 1, 2 for a wide cluster, 0 for a continuation cell.
    public internal(set) var width: UInt8

    /// A blank cell in `style`.
    public static func blank(_ style: CellStyle = .plain) -> Cell {
        Cell(text: " ", style: style, width: 1)
    }

    /// Whether this is the right half of a wide cluster.
    public var isContinuation: Bool { width == 0 }

    static func continuation(_ style: CellStyle) -> Cell {
        Cell(text: "", style: style, width: 0)
    }

    /// Equal only with the same scalars: `String`'s `==` would call `é` and `e` + U+0301 the same
    /// cell, and a frame that changes one into the other would not send what the server sent.
    public static func == (lhs: Cell, rhs: Cell) -> Bool {
        lhs.width == rhs.width && lhs.style == rhs.style && lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(width)
        hasher.combine(style)
        for byte in text.utf8 { hasher.combine(byte) }
    }
}
