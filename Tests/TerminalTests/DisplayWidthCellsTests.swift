import Testing

@testable import Terminal

#if canImport(Glibc)
import Glibc
#endif

/// A cluster split into the terminal cells it fills: every scalar kept, at most ncurses' five per cell.
@Suite struct DisplayWidthCellsTests {
    func cell(_ text: String, _ width: Int) -> DisplayWidth.CellText {
        DisplayWidth.CellText(text: text, width: width)
    }

    /// Text in the scripts and emoji sequences that lost characters before (issue 11).
    static let corpus = [
        "भारत ट्रेडिंग कंपनी", "বাংলাদেশ ক্ষমতা", "தமிழ்நாடு கொடி", "บริษัท จำกัด", "شركة السيارات",
        "שָׁלוֹם חברה", "한국 자동차", "\u{1100}\u{1161}\u{11A8}", "Cafe\u{301} Zo\u{308}e",
        "👨\u{200D}👩\u{200D}👧 🧑\u{200D}🤝\u{200D}🧑 🏳️\u{200D}🌈", "👩🏽\u{200D}💻", "🇫🇷🇯🇵🇮🇳", "👍🏽 ✌🏿 👋🏻",
        "❤️ 1️⃣ ☺️",
    ]

    @Test func a_spacing_vowel_sign_gets_a_cell_of_its_own() {
        #expect(DisplayWidth.cells(of: Character("भा")) == [cell("भ", 1), cell("ा", 1)])
        #expect(DisplayWidth.cells(of: Character("ट्रे")) == [cell("ट्", 1), cell("रे", 1)])
        #expect(DisplayWidth.cells(of: Character("จำ")) == [cell("จ", 1), cell("ำ", 1)])
    }

    @Test func a_zwj_sequence_is_one_cell_as_wide_as_its_first_emoji() {
        let family = "👨\u{200D}👩\u{200D}👧"
        #expect(DisplayWidth.cells(of: Character(family)) == [cell(family, 2)])
        let coder = DisplayWidth.cells(of: Character("👩🏽\u{200D}💻"))
        #expect(coder == [cell("👩", 2), cell("🏽\u{200D}💻", 2)])
    }

    @Test func a_sequence_longer_than_a_cell_holds_shows_its_last_emoji_beside_it() {
        // Given a family of four: 7 scalars, more than ncurses' 5 per cell
        let cells = DisplayWidth.cells(of: Character("👨\u{200D}👩\u{200D}👧\u{200D}👦"))
        // Then the joiner that cannot fit is left out, and the boy gets his own cell instead of vanishing
        #expect(cells == [cell("👨\u{200D}👩\u{200D}👧", 2), cell("👦", 2)])
    }

    @Test func marks_beyond_five_scalars_continue_on_a_dotted_circle() {
        let cells = DisplayWidth.cells(of: Character("a\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}"))
        #expect(cells == [cell("a\u{301}\u{302}\u{303}\u{304}", 1), cell("◌\u{305}\u{306}", 1)])
    }

    @Test func a_joiner_that_ends_a_cluster_shows_as_the_invisible_placeholder() {
        // 👍 ZWJ before a flag: the flag is a new cluster, and a terminal would join its first half onto 👍
        #expect(DisplayWidth.cells(of: Character("👍\u{200D}")) == [cell("👍", 2), cell("␣", 1)])
    }

    @Test func every_cell_is_whole_and_nothing_is_lost_in_the_corpus() {
        for text in Self.corpus {
            var joined = ""
            for character in text {
                let cells = DisplayWidth.cells(of: character)
                #expect(cells.allSatisfy { (1...2).contains($0.width) && $0.text.unicodeScalars.count <= 5 }, "\(text)")
                #expect(cells.reduce(0) { $0 + $1.width } == DisplayWidth.width(of: character), "\(character)")
                joined += cells.map(\.text).joined()
            }
            #expect(joined == text)
        }
    }

    @Test func the_cells_measure_as_glibc_does_for_ncurses_and_tmux() {
        // Given the C.UTF-8 locale ncurses and tmux measure in (wcwidth is -1 for non-ASCII otherwise)
        guard setlocale(LC_CTYPE, "C.UTF-8") != nil else { return }
        // Then each cell's first scalar is as wide as we say and the rest add nothing
        for text in Self.corpus {
            for character in text {
                for cell in DisplayWidth.cells(of: character) {
                    let scalars = cell.text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
                    #expect(CursesTerminal.glibcAgrees(scalars, width: Int32(cell.width)), "\(cell)")
                }
            }
        }
    }
}
