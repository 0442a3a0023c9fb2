import Testing

@testable import Terminal

/// Writing text into cells: sanitised, wide clusters whole, never past the edge.
@Suite struct ScreenBufferTests {
    let size = TerminalSize(columns: 10, rows: 2)

    @Test func put_writes_text_and_returns_the_next_column() {
        var buffer = ScreenBuffer(size: size)
        let end = buffer.put("Ford", row: 0, column: 1)
        #expect(end == 5)
        #expect(buffer.lines[0] == " Ford     ")
    }

    @Test func put_sanitises_hostile_text() {
        var buffer = ScreenBuffer(size: size)
        buffer.put("\u{1B}]0;t\u{07}a\u{7}", row: 0, column: 0)
        #expect(buffer.lines[0] == "␛a␇       ")
    }

    @Test func a_wide_cluster_takes_two_cells_and_prints_once() {
        var buffer = ScreenBuffer(size: size)
        buffer.put("日👍🏽x", row: 0, column: 0)
        #expect(buffer[0, 0].width == 2)
        #expect(buffer[0, 1].isContinuation)
        #expect(buffer[0, 2].text == "👍🏽")
        #expect(buffer.lines[0] == "日👍🏽x     ")
    }

    @Test func a_wide_cluster_never_overflows_the_right_edge() {
        var buffer = ScreenBuffer(size: size)
        let end = buffer.put("abcdefghi日", row: 0, column: 0)
        #expect(end == 10)
        #expect(buffer.lines[0] == "abcdefghi ")
        #expect(!buffer[0, 9].isContinuation)
    }

    @Test func a_field_is_clipped_with_an_ellipsis_and_padded() {
        var buffer = ScreenBuffer(size: size)
        buffer.put("Explorer", row: 0, column: 0, width: 5)
        buffer.put("日本語", row: 1, column: 0, width: 4, alignment: .trailing)
        #expect(buffer.lines[0] == "Expl…     ")
        #expect(buffer.lines[1] == " 日…      ")
    }

    @Test func overwriting_half_of_a_wide_cluster_blanks_the_other_half() {
        // Given a wide character in columns 2–3
        var buffer = ScreenBuffer(size: size)
        buffer.put("ab日cd", row: 0, column: 0)
        // When its right half is overwritten
        buffer.put("X", row: 0, column: 3)
        // Then no half-character is left behind
        #expect(buffer.lines[0] == "ab Xcd    ")
        #expect(!buffer[0, 2].isContinuation && buffer[0, 2].width == 1)
    }

    @Test func identical_frames_have_no_changes() {
        var buffer = ScreenBuffer(size: size)
        buffer.put("same", row: 1, column: 0)
        #expect(buffer.changedSpans(since: buffer).isEmpty)
    }

    @Test func a_new_size_counts_as_a_full_redraw() {
        let small = ScreenBuffer(size: size)
        let large = ScreenBuffer(size: TerminalSize(columns: 12, rows: 3))
        #expect(large.changedCellCount(since: small) == 36)
        #expect(large.changedCellCount(since: nil) == 36)
    }

    @Test func a_change_in_the_right_half_of_a_wide_cluster_includes_its_left_half() {
        var before = ScreenBuffer(size: size)
        before.put("日", row: 0, column: 0)
        var after = before
        after.put("本", row: 0, column: 0)
        #expect(after.changedSpans(since: before) == [.init(row: 0, columns: 0..<2)])
    }
}
