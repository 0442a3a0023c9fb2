import Terminal

/// The selection marker: a bar in a one-cell gutter at the left of every list row.
///
/// Only the gutter cell changes when the cursor moves, so moving one row sends a few
/// bytes over SSH instead of rewriting two whole rows (a full-width reverse bar costs
/// every cell whose attribute changes).
enum SelectionGutter {
    /// Columns the gutter takes; row content starts after it.
    static let width = 1
    static let marker = "▌"

    /// Draws the gutter of `line`: the marker when selected, a blank otherwise.
    static func draw(selected: Bool, line: Int, into buffer: inout ScreenBuffer) {
        buffer.put(selected ? marker : " ", row: line, column: 0, style: selected ? CellStyle(role: .accent) : .plain)
    }
}
