extension ScreenBuffer {
    /// A run of adjacent cells on one row that differ from the previous frame.
    public struct ChangedSpan: Hashable, Sendable {
        /// The row.
        public var row: Int
        /// The changed columns.
        public var columns: Range<Int>
    }

    /// The runs of cells that differ from `previous`, row by row, left to right.
    ///
    /// If the sizes differ (or there is no previous frame) every cell counts as changed.
    /// A run that starts on the right half of a wide cluster is widened to include its left half,
    /// so a driver never has to draw half a character.
    public func changedSpans(since previous: ScreenBuffer?) -> [ChangedSpan] {
        let columns = size.columns
        guard let previous, previous.size == size else {
            return (0..<size.rows).map { ChangedSpan(row: $0, columns: 0..<columns) }
        }
        var spans: [ChangedSpan] = []
        for row in 0..<size.rows {
            let base = row * columns
            var column = 0
            while column < columns {
                guard cells[base + column] != previous.cells[base + column] else {
                    column += 1
                    continue
                }
                var start = column
                if cells[base + start].isContinuation, start > 0 { start -= 1 }
                while column < columns, cells[base + column] != previous.cells[base + column] { column += 1 }
                if column < columns, cells[base + column].isContinuation { column += 1 }
                if let last = spans.last, last.row == row, last.columns.upperBound >= start {
                    spans[spans.count - 1].columns = last.columns.lowerBound..<column
                } else {
                    spans.append(ChangedSpan(row: row, columns: start..<column))
                }
            }
        }
        return spans
    }

    /// How many cells `changedSpans(since:)` covers: the cells a driver would send.
    public func changedCellCount(since previous: ScreenBuffer?) -> Int {
        changedSpans(since: previous).reduce(0) { $0 + $1.columns.count }
    }
}
