import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// Presenting frames: only changed cells go to ncurses, and ncurses sends only what it must.
extension CursesTerminal {
    public func present(_ frame: ScreenBuffer) {
        guard !isRestored, !isSuspended else { return }
        let previous = lastPresented.flatMap { $0.size == frame.size ? $0 : nil }
        if previous == nil { cd_erase() }  // first frame or resize only: never per frame
        for span in frame.changedSpans(since: previous) {
            draw(span, of: frame)
        }
        cd_attr_set(cd_a_normal(), 0)
        cd_refresh()
        lastPresented = frame
    }

    /// Draws one span as runs of equal style, one `addnwstr` per run.
    private func draw(_ span: ScreenBuffer.ChangedSpan, of frame: ScreenBuffer) {
        var column = span.columns.lowerBound
        var text: [wchar_t] = []
        while column < span.columns.upperBound {
            let style = frame[span.row, column].style
            let runStart = column
            text.removeAll(keepingCapacity: true)
            while column < span.columns.upperBound, frame[span.row, column].style == style {
                let cell = frame[span.row, column]
                if !cell.isContinuation { text.append(contentsOf: wideCharacters(for: cell)) }
                column += 1
            }
            guard !text.isEmpty else { continue }
            let (attrs, pair) = palette.attributes(for: style)
            cd_attr_set(attrs, pair)
            // The bottom-right cell makes addnwstr return ERR (no scrolling); the cell is still drawn.
            _ = cd_mvaddnwstr(Int32(span.row), Int32(runStart), text, Int32(text.count))
        }
    }

    /// The `wchar_t`s ncurses gets for a cell, chosen so ncurses' idea of the width (glibc
    /// `wcwidth`, scalar by scalar) equals the cell's ``DisplayWidth``.
    ///
    /// Clusters glibc measures differently (emoji with skin tones, ZWJ sequences, emoji newer
    /// than glibc) are drawn as their first scalar when that alone has the right width, else as
    /// `�` (padded with a space for wide cells). At most 5 scalars (ncurses' `CCHARW_MAX`) are
    /// kept, so a pile of combining marks cannot grow a cell.
    func wideCharacters(for cell: Cell) -> [wchar_t] {
        if let cached = wideCache[cell.text] { return cached }
        let scalars = cell.text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
        let expected = Int32(cell.width)
        var result: [wchar_t]
        if glibcWidth(scalars) == expected {
            result = Array(scalars.prefix(5))
        } else if let first = scalars.first, cd_wcwidth(first) == expected {
            result = [first]
        } else {
            result = expected == 2 ? [0xFFFD, 0x20] : [0xFFFD]
        }
        if wideCache.count > 4096 { wideCache.removeAll() }
        wideCache[cell.text] = result
        return result
    }

    /// How ncurses will measure a cluster: the first scalar's width plus any spacing ones after it.
    private func glibcWidth(_ scalars: [wchar_t]) -> Int32 {
        guard let first = scalars.first else { return 0 }
        let base = cd_wcwidth(first)
        guard base >= 0 else { return -1 }
        var total = base
        for scalar in scalars.dropFirst() {
            let width = cd_wcwidth(scalar)
            if width < 0 { return -1 }
            total += width
        }
        return total
    }
}
