import Testing

@testable import Terminal

/// The in-memory driver: frames as text, the diff a real terminal would get, injected keys.
@MainActor
@Suite struct HeadlessTerminalTests {
    /// A list of `rows` names with `selected` highlighted, as a screen would render it.
    func listFrame(size: TerminalSize, selected: Int) -> ScreenBuffer {
        var frame = ScreenBuffer(size: size)
        frame.put("People", row: 0, column: 0, style: CellStyle([.bold], role: .title))
        for index in 0..<5 {
            let style = index == selected ? CellStyle(role: .selection) : .plain
            frame.put("Person \(index)", row: index + 1, column: 0, width: size.columns, style: style)
        }
        return frame
    }

    @Test func the_first_frame_is_sent_in_full() {
        let terminal = HeadlessTerminal(size: TerminalSize(columns: 20, rows: 8))
        terminal.present(listFrame(size: terminal.size, selected: 0))
        #expect(terminal.cellsSent == [160])
        #expect(terminal.lastFrame[0] == "People              ")
        #expect(terminal.lastFrame[1] == "Person 0            ")
    }

    @Test func moving_the_highlight_one_row_sends_only_those_two_rows() {
        // Given a list with the first row highlighted
        let terminal = HeadlessTerminal(size: TerminalSize(columns: 20, rows: 8))
        terminal.present(listFrame(size: terminal.size, selected: 0))
        // When the highlight moves down one row
        terminal.present(listFrame(size: terminal.size, selected: 1))
        // Then exactly the old and the new highlighted rows are sent (2 × 20 cells)
        #expect(terminal.cellsSent.last == 40)
        let spans = terminal.lastBuffer!.changedSpans(since: listFrame(size: terminal.size, selected: 0))
        #expect(spans.map(\.row) == [1, 2])
    }

    @Test func an_unchanged_frame_sends_nothing() {
        let terminal = HeadlessTerminal(size: TerminalSize(columns: 20, rows: 8))
        terminal.present(listFrame(size: terminal.size, selected: 2))
        terminal.present(listFrame(size: terminal.size, selected: 2))
        #expect(terminal.cellsSent.last == 0)
    }

    @Test func injected_keys_are_read_once_in_order() {
        let terminal = HeadlessTerminal()
        terminal.inject(.down, .char("j"), .enter)
        #expect(terminal.readKeys() == [.down, .char("j"), .enter])
        #expect(terminal.readKeys().isEmpty)
    }

    @Test func a_resize_queues_a_resize_key_and_redraws_in_full() {
        let terminal = HeadlessTerminal(size: TerminalSize(columns: 20, rows: 8))
        terminal.present(listFrame(size: terminal.size, selected: 0))
        terminal.resize(to: TerminalSize(columns: 10, rows: 6))
        #expect(terminal.readKeys() == [.resize])
        terminal.present(listFrame(size: terminal.size, selected: 0))
        #expect(terminal.cellsSent.last == 60)
        #expect(terminal.lastFrame[1] == "Person 0  ")
    }

    @Test func resume_forces_a_full_redraw_and_restore_is_idempotent() {
        let terminal = HeadlessTerminal(size: TerminalSize(columns: 4, rows: 2))
        terminal.present(ScreenBuffer(size: terminal.size))
        terminal.suspend()
        terminal.resume()
        terminal.present(ScreenBuffer(size: terminal.size))
        #expect(terminal.cellsSent == [8, 8])
        terminal.restore()
        terminal.restore()
        #expect(terminal.restoreCount == 1)
    }
}
