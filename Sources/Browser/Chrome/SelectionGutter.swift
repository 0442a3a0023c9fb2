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

    /// Marks a row whose entity has changes made here that the service has not settled.
    static let pendingMarker = "•"

    /// Marks a candidate already linked where it would be linked (`L`).
    static let linkedMarker = "✓"

    /// Draws the gutter of `line`: the marker when selected, the pending mark, the linked mark, or a blank. A
    /// pending row under the cursor keeps its mark, in reverse (without colour, the row's text is not marked).
    static func draw(
        selected: Bool, pending: Bool = false, linked: Bool = false, line: Int, into buffer: inout ScreenBuffer
    ) {
        if selected, pending {
            buffer.put(pendingMarker, row: line, column: 0, style: CellStyle([.reverse], role: .warning))
        } else if selected {
            buffer.put(marker, row: line, column: 0, style: CellStyle(role: .accent))
        } else if pending {
            buffer.put(pendingMarker, row: line, column: 0, style: CellStyle(role: .warning))
        } else {
            buffer.put(linked ? linkedMarker : " ", row: line, column: 0, style: CellStyle(role: .muted))
        }
    }
}
