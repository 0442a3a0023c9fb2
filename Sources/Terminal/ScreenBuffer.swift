/// A frame: a grid of ``Cell``s that a screen renders into and a ``TerminalDriver`` presents.
///
/// A value type: render a fresh buffer (or mutate a copy) per frame; the driver keeps the last
/// presented one and sends only the difference. All text written through ``put(_:row:column:style:)``
/// passes ``TextSanitizer`` and is measured with ``DisplayWidth``. A cluster is stored as the
/// terminal cells it fills (``DisplayWidth/cells(of:)``: `भा` is two cells, `👨‍👩‍👧` one wide
/// cell), so cells here and cells on the terminal line up one to one; a cluster is written whole
/// or not at all, and never overflows the right edge (a blank is left instead).
public struct ScreenBuffer: Hashable, Sendable {
    /// The grid's size.
    public let size: TerminalSize
    /// Row-major cells, `size.rows * size.columns` of them.
    public private(set) var cells: [Cell]

    /// A buffer of blank cells in `style`.
    public init(size: TerminalSize, style: CellStyle = .plain) {
        self.size = size
        self.cells = Array(repeating: .blank(style), count: size.rows * size.columns)
    }

    /// The cell at `row`, `column` (both must be in range).
    public subscript(row: Int, column: Int) -> Cell {
        cells[row * size.columns + column]
    }

    /// Blanks a whole row in `style` (for example a selection bar or a status line background).
    public mutating func fill(row: Int, style: CellStyle = .plain) {
        guard (0..<size.rows).contains(row) else { return }
        let start = row * size.columns
        for index in start..<(start + size.columns) { cells[index] = .blank(style) }
    }

    /// Writes `text` from `column` on `row`, cutting it hard at the right edge.
    ///
    /// - Returns: the column just after the last cell written.
    @discardableResult
    public mutating func put(_ text: String, row: Int, column: Int, style: CellStyle = .plain) -> Int {
        write(TextSanitizer.sanitize(text), row: row, column: column, limit: size.columns, style: style)
    }

    /// Writes `text` into a field of exactly `width` cells: clipped with `…` if too long,
    /// padded with blanks (in `style`) if too short.
    ///
    /// - Returns: the column just after the field (clamped to the buffer).
    @discardableResult
    public mutating func put(
        _ text: String, row: Int, column: Int, width: Int,
        alignment: DisplayWidth.Alignment = .leading, style: CellStyle = .plain
    ) -> Int {
        let field = DisplayWidth.pad(TextSanitizer.sanitize(text), to: width, alignment: alignment)
        return write(field, row: row, column: column, limit: min(size.columns, column + width), style: style)
    }

    /// The cells of `row` in `columns` (clamped to the buffer), to be placed again with ``place(_:row:column:)``.
    /// A copy, so that the frame can go on being drawn without copying all of its cells.
    public func cells(row: Int, columns: Range<Int>) -> [Cell] {
        guard (0..<size.rows).contains(row) else { return [] }
        let clamped = columns.clamped(to: 0..<size.columns)
        let base = row * size.columns
        return Array(cells[(base + clamped.lowerBound)..<(base + clamped.upperBound)])
    }

    /// Puts back cells taken with ``cells(row:columns:)`` from a buffer as wide, from `column` on `row`: a row a
    /// screen drew before, unchanged, costs a copy instead of measuring its text again. Cut at the right edge.
    public mutating func place(_ run: [Cell], row: Int, column: Int) {
        guard (0..<size.rows).contains(row), column >= 0, column < size.columns else { return }
        let count = min(run.count, size.columns - column)
        let base = row * size.columns + column
        breakWide(base: row * size.columns, column: column)
        cells.replaceSubrange(base..<(base + count), with: run.prefix(count))
        guard count > 0 else { return }
        // A right half whose left half is not in the run, and a wide cluster whose right half is not (cut by the
        // edge, or taken without it), are blanks instead.
        if cells[base].isContinuation { cells[base] = .blank(cells[base].style) }
        if cells[base + count - 1].width == 2 {
            cells[base + count - 1] = .blank(cells[base + count - 1].style)
        }
        // The right half of a wide cluster the run's end overwrote the left half of.
        let after = base + count
        if after < (row + 1) * size.columns, cells[after].isContinuation {
            cells[after] = .blank(cells[after].style)
        }
    }

    /// The frame as text, one `String` per row, wide clusters once, styles dropped.
    public var lines: [String] {
        (0..<size.rows).map { row in
            var line = ""
            for column in 0..<size.columns { line += self[row, column].text }
            return line
        }
    }

    /// Writes already-sanitised text between `column` and `limit`.
    private mutating func write(_ text: String, row: Int, column: Int, limit: Int, style: CellStyle) -> Int {
        guard (0..<size.rows).contains(row), column < limit else { return max(column, 0) }
        var col = column
        for character in text {
            let width = DisplayWidth.width(of: character)
            if width == 0 { continue }
            if col + width > limit {
                if col < limit, col >= 0 { set(.blank(style), row: row, column: col) }
                col = limit
                break
            }
            let scalars = character.unicodeScalars
            if scalars.dropFirst().isEmpty, DisplayWidth.width(of: scalars.first!) == width {
                // One scalar that fills its cell alone (not a lone mark, which needs its dotted circle).
                let cell = Cell(text: String(character), style: style, width: UInt8(width))
                if col >= 0 { set(cell, row: row, column: col) }
                col += width
                continue
            }
            for piece in DisplayWidth.cells(of: character) {
                let cell = Cell(text: piece.text, style: style, width: UInt8(piece.width))
                if col >= 0 { set(cell, row: row, column: col) }
                col += piece.width
            }
        }
        return col
    }

    /// Stores a cell, blanking the other half of any wide cluster it overwrites.
    private mutating func set(_ cell: Cell, row: Int, column: Int) {
        let base = row * size.columns
        breakWide(base: base, column: column)
        if cell.width == 2 {
            guard column + 1 < size.columns else {
                cells[base + column] = .blank(cell.style)
                return
            }
            breakWide(base: base, column: column + 1)
            cells[base + column + 1] = .continuation(cell.style)
        }
        cells[base + column] = cell
    }

    /// If `column` holds half of a wide cluster, blanks the other half.
    private mutating func breakWide(base: Int, column: Int) {
        let existing = cells[base + column]
        if existing.isContinuation, column > 0 {
            cells[base + column - 1] = .blank(cells[base + column - 1].style)
            cells[base + column] = .blank(existing.style)
        } else if existing.width == 2, column + 1 < size.columns {
            cells[base + column + 1] = .blank(existing.style)
        }
    }
}
