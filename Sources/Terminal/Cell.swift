/// One character cell of a ``ScreenBuffer``.
///
/// A wide grapheme cluster (CJK, emoji) occupies two cells: the first holds the cluster, the
/// second is a ``isContinuation`` cell with empty text. Text in a cell is always sanitised.
public struct Cell: Hashable, Sendable {
    /// One grapheme cluster, or `""` in the right half of a wide cluster.
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
}
