import Testing

@testable import Terminal

/// Widths per grapheme cluster, clipping with an ellipsis, padding to a column.
@Suite struct DisplayWidthTests {
    @Test func ascii_and_latin_are_one_column_each() {
        #expect(DisplayWidth.width(of: "Samson, Bob") == 11)
        #expect(DisplayWidth.width(of: "Zoë") == 3)
    }

    @Test func cjk_and_fullwidth_are_two_columns() {
        #expect(DisplayWidth.width(of: "日本語") == 6)
        #expect(DisplayWidth.width(of: "한국") == 4)
        #expect(DisplayWidth.width(of: "ＡＢ") == 4)
        #expect(DisplayWidth.width(of: "カ") == 2)
    }

    @Test func combining_marks_add_nothing() {
        #expect(DisplayWidth.width(of: "e\u{301}te\u{301}") == 3)
        #expect(DisplayWidth.width(of: Character("\u{301}")) == 0)
        #expect(DisplayWidth.width(of: "a\u{301}\u{302}\u{303}\u{304}\u{305}") == 1)
    }

    @Test func emoji_sequences_are_two_columns_per_cluster() {
        #expect(DisplayWidth.width(of: Character("👍")) == 2)
        #expect(DisplayWidth.width(of: Character("👍🏽")) == 2)  // skin tone modifier
        #expect(DisplayWidth.width(of: Character("👨\u{200D}👩\u{200D}👧\u{200D}👦")) == 2)  // ZWJ family
        #expect(DisplayWidth.width(of: Character("🇫🇷")) == 2)  // flag
        #expect(DisplayWidth.width(of: Character("❤\u{FE0F}")) == 2)  // emoji presentation selector
        #expect(DisplayWidth.width(of: Character("1\u{FE0F}\u{20E3}")) == 2)  // keycap
        #expect(DisplayWidth.width(of: Character("❤")) == 1)  // text presentation by default
        #expect(DisplayWidth.width(of: "a👍🏽b🇫🇷c") == 7)
    }

    @Test func placeholders_are_one_column() {
        #expect(DisplayWidth.width(of: "␛␇⇆␣\u{FFFD}␤") == 6)
    }

    @Test func text_that_fits_is_not_clipped() {
        #expect(DisplayWidth.clip("Ford", to: 4) == "Ford")
    }

    @Test func clipped_text_ends_in_an_ellipsis_within_the_limit() {
        #expect(DisplayWidth.clip("Explorer", to: 5) == "Expl…")
        #expect(DisplayWidth.clip("Explorer", to: 1) == "…")
        #expect(DisplayWidth.clip("Explorer", to: 0) == "")
    }

    @Test func clipping_never_splits_a_wide_cluster() {
        // "日本語" is 6 columns; 4 leaves room for one wide char plus the ellipsis
        #expect(DisplayWidth.clip("日本語", to: 4) == "日…")
        #expect(DisplayWidth.width(of: DisplayWidth.clip("日本語", to: 4)) == 3)
        #expect(DisplayWidth.clip("a👨\u{200D}👩\u{200D}👧b", to: 3) == "a…")
        #expect(DisplayWidth.clip("e\u{301}e\u{301}e\u{301}", to: 2) == "e\u{301}…")
    }

    @Test func padding_gives_exactly_the_field_width() {
        for text in ["Ford", "日本語テキスト", "👍🏽👍🏽👍🏽👍🏽", "e\u{301}", "", "🇫🇷x"] {
            for width in 1...9 {
                let padded = DisplayWidth.pad(text, to: width)
                #expect(DisplayWidth.width(of: padded) == width, "\(text) in \(width)")
            }
        }
    }

    @Test func alignment_puts_the_padding_on_the_right_side() {
        #expect(DisplayWidth.pad("42", to: 5, alignment: .trailing) == "   42")
        #expect(DisplayWidth.pad("日", to: 5, alignment: .leading) == "日   ")
        #expect(DisplayWidth.pad("ab", to: 6, alignment: .center) == "  ab  ")
    }

    @Test func columns_line_up_across_mixed_scripts() {
        // Given rows mixing scripts in a 6-column first column
        let rows = ["Bob", "日本語テキスト", "👍🏽 ok", "Zoë"].map { DisplayWidth.pad($0, to: 6) + "|" }
        // Then the separator is at the same display column in every row
        for row in rows { #expect(DisplayWidth.width(of: row) == 7) }
    }
}
