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
        let spans = frame.changedSpans(since: previous)
        for span in spans {
            draw(span, of: frame)
        }
        cd_attr_set(cd_a_normal(), 0)
        cd_refresh()
        lastPresented = frame
        if marksFrames, previous == nil || !spans.isEmpty { markFrameEnd() }
    }

    /// ``FrameMark`` after what ncurses has sent for the frame.
    private func markFrameEnd() {
        fflush(outputFile)
        _ = FrameMark.bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, outputFile) }
        fflush(outputFile)
    }

    /// A new colour scheme: the pairs are defined again and the next frame is drawn whole.
    public func setTheme(_ theme: Theme) {
        palette = ColorPalette(capability: colorCapability, theme: theme)
        palette.install()
        lastPresented = nil
    }

    /// OSC 52 on the terminal's output, after what ncurses has sent (it moves no cursor and draws nothing).
    @discardableResult
    public func copyToClipboard(_ text: String) -> Bool {
        guard !isRestored, !isSuspended else { return false }
        fflush(outputFile)
        let sequence = OSC52.sequence(for: text)
        let written = sequence.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, outputFile) }
        fflush(outputFile)
        return written == sequence.count
    }

    /// Draws one span cell by cell, each with every scalar it holds (``terminalCells(for:)``).
    private func draw(_ span: ScreenBuffer.ChangedSpan, of frame: ScreenBuffer) {
        var style: CellStyle?
        var attributes = (cd_a_normal(), Int16(0))
        _ = cd_move(Int32(span.row), Int32(span.columns.lowerBound))
        for column in span.columns {
            let cell = frame[span.row, column]
            if cell.isContinuation { continue }
            if cell.style != style {
                style = cell.style
                attributes = palette.attributes(for: cell.style)
            }
            // The bottom-right cell makes wadd_wch return ERR (no scrolling); the cell is still drawn.
            for scalars in terminalCells(for: cell) {
                _ = cd_add_cell(scalars, Int32(scalars.count), attributes.0, attributes.1)
            }
        }
    }

    /// The ncurses cells (each up to 5 `wchar_t`, spacing one first) that show `cell`.
    ///
    /// Normally one: the cell's own scalars, which is what the terminal gets. ncurses advances by
    /// glibc's `wcwidth` of the first scalar, and tmux and `wcwidth` terminals by that plus every
    /// other scalar not joined by a ZWJ, so the scalars are checked against glibc: a cell glibc would
    /// measure differently from ``DisplayWidth`` (a scalar newer than glibc's tables, say) is drawn
    /// as `�` (and a blank for a wide cell): visible, and the columns after it stay right.
    ///
    /// Cached by scalars, not by `String`: strings compare by canonical equivalence, and a cache
    /// keyed by them would send the precomposed `한` for the jamo `ᄒ ᅡ ᆫ` drawn after it.
    func terminalCells(for cell: Cell) -> [[wchar_t]] {
        let scalars = cell.text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
        let agrees: Bool
        if let cached = glibcAgreement[scalars] {
            agrees = cached
        } else {
            agrees = Self.glibcAgrees(scalars, width: Int32(cell.width))
            if glibcAgreement.count > 4096 { glibcAgreement.removeAll() }
            glibcAgreement[scalars] = agrees
        }
        if agrees { return [scalars] }
        return cell.width == 2 ? [[0xFFFD], [0x20]] : [[0xFFFD]]
    }

    /// Whether glibc (ncurses, and tmux on this machine) advances `width` columns for `scalars` in one cell.
    nonisolated static func glibcAgrees(_ scalars: [wchar_t], width: Int32) -> Bool {
        guard let first = scalars.first, scalars.count <= DisplayWidth.maxScalarsPerCell,
            cd_wcwidth(first) == width
        else { return false }
        var afterJoiner = false
        for scalar in scalars.dropFirst() {
            // Controls never reach the terminal, even here (TextSanitizer has replaced them already).
            if scalar < 0x20 || (0x7F..<0xA0).contains(scalar) { return false }
            if !afterJoiner, cd_wcwidth(scalar) > 0 { return false }
            afterJoiner = scalar == 0x200D
        }
        return true
    }
}
