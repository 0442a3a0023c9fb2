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
        buffer.put("日👨\u{200D}👩\u{200D}👧x", row: 0, column: 0)
        #expect(buffer[0, 0].width == 2)
        #expect(buffer[0, 1].isContinuation)
        #expect(buffer[0, 2].text == "👨\u{200D}👩\u{200D}👧")
        #expect(buffer.lines[0] == "日👨\u{200D}👩\u{200D}👧x     ")
    }

    @Test func a_cluster_fills_one_cell_per_spacing_scalar_and_keeps_every_scalar() {
        // Given Devanagari whose vowel signs take a column each, and a thumb with a skin tone
        var buffer = ScreenBuffer(size: size)
        let end = buffer.put("भारत", row: 0, column: 0)
        buffer.put("👍🏽!", row: 1, column: 0)
        // Then the cells line up with the terminal's: भ ा र त, and 👍 🏽 as two wide cells
        #expect(end == 4)
        #expect((0..<4).map { buffer[0, $0].text } == ["भ", "ा", "र", "त"])
        #expect(buffer.lines[0] == "भारत      ")
        #expect(buffer[1, 0].text == "👍" && buffer[1, 2].text == "🏽" && buffer[1, 4].text == "!")
        #expect(buffer.lines[1] == "👍🏽!     ")
    }

    @Test func a_lone_mark_is_drawn_on_a_dotted_circle() {
        var buffer = ScreenBuffer(size: size)
        buffer.put("\u{301}x", row: 0, column: 0)
        #expect(buffer.lines[0] == "◌\u{301}x        ")
    }

    @Test func a_cluster_wider_than_the_room_left_is_not_split() {
        // Given क्षि (three columns) starting two columns from the edge
        var buffer = ScreenBuffer(size: size)
        let end = buffer.put("abcdefghक्षि", row: 0, column: 0)
        // Then none of it is written: a blank, and the row ends
        #expect(end == 10)
        #expect(buffer.lines[0] == "abcdefgh  ")
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

    @Test func a_cell_changed_to_a_canonically_equivalent_form_is_sent_again() {
        // Given é precomposed on screen
        var before = ScreenBuffer(size: size)
        before.put("\u{E9}", row: 0, column: 0)
        // When the server now sends e + combining acute (equal as Swift Strings)
        var after = before
        after.put("e\u{301}", row: 0, column: 0)
        // Then the cell counts as changed, so the terminal gets what was sent
        #expect(after.changedSpans(since: before) == [.init(row: 0, columns: 0..<1)])
        #expect(after != before)
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

/// Cells taken from one frame and placed in another (a list row drawn before, unchanged).
@Suite struct ScreenBufferPlaceTests {
    let size = TerminalSize(columns: 8, rows: 2)

    @Test func placed_cells_read_as_the_text_they_were_taken_from() {
        // Given a row drawn with a wide cluster
        var source = ScreenBuffer(size: size)
        source.put("a山b", row: 0, column: 1)
        let run = source.cells(row: 0, columns: 1..<5)
        // When placed on another row of another buffer
        var target = ScreenBuffer(size: size)
        target.place(run, row: 1, column: 1)
        // Then it reads the same there
        #expect(target.lines[1] == " a山b   ")
        #expect(target.cells(row: 1, columns: 1..<5) == run)
    }

    @Test func a_run_cut_at_the_right_edge_leaves_no_half_of_a_wide_cluster() {
        // Given a run ending in a wide cluster
        var source = ScreenBuffer(size: size)
        source.put("abc山", row: 0, column: 0)
        let run = source.cells(row: 0, columns: 0..<5)
        // When placed where only its first four cells fit
        var target = ScreenBuffer(size: size)
        target.place(run, row: 0, column: 4)
        // Then the cluster that does not fit is a blank
        #expect(target.lines[0] == "    abc ")
        #expect(target[0, 7].width == 1)
    }

    @Test func a_run_taken_across_a_wide_cluster_places_no_half_of_it() {
        // Given a line with a wide cluster at columns 1–2 and another at 4–5
        var source = ScreenBuffer(size: size)
        source.put("a山b山", row: 0, column: 0)
        // When a run from its right half (column 2) to the next one's left half (column 4) is placed
        var target = ScreenBuffer(size: size)
        target.place(source.cells(row: 0, columns: 2..<5), row: 0, column: 0)
        // Then both halves are blanks and what was whole between them stays
        #expect(target.lines[0] == " b      ")
        #expect((0..<8).allSatisfy { target[0, $0].width == 1 })
    }

    @Test func placing_over_half_of_a_wide_cluster_blanks_its_other_half() {
        // Given a line with wide clusters at columns 0–1 and 4–5
        var target = ScreenBuffer(size: size)
        target.put("山ab山", row: 0, column: 0)
        var source = ScreenBuffer(size: size)
        source.put("xyz", row: 0, column: 0)
        // When three cells are placed from column 1 (over the first's right half), then two from column 3 (over
        // the second's left half)
        target.place(source.cells(row: 0, columns: 0..<3), row: 0, column: 1)
        target.place(source.cells(row: 0, columns: 0..<2), row: 0, column: 3)
        // Then the halves left behind are blanks, not stray halves
        #expect(target.lines[0] == " xyxy   ")
        #expect((0..<8).allSatisfy { target[0, $0].width == 1 })
    }
}
