import Testing

@testable import Terminal

/// Every class of hostile input becomes visible placeholders; nothing reaches the terminal raw.
@Suite struct TextSanitizerTests {
    /// True when no scalar that a terminal would act on is left.
    func isInert(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            let v = scalar.value
            return
                !(v < 0x20 || (0x7F...0x9F).contains(v) || (0x202A...0x202E).contains(v)
                || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F || v == 0x061C)
        }
    }

    @Test func plain_ascii_is_returned_unchanged() {
        #expect(TextSanitizer.sanitize("Samson, Bob") == "Samson, Bob")
    }

    @Test func an_osc_title_sequence_collapses_to_one_placeholder() {
        // Given a string that would set the window title (terminated by BEL, then by ST)
        let bel = "a\u{1B}]0;pwned\u{07}b"
        let st = "a\u{1B}]2;pwned\u{1B}\\b"
        // Then each sequence becomes a single ␛ and the title text is gone
        #expect(TextSanitizer.sanitize(bel) == "a␛b")
        #expect(TextSanitizer.sanitize(st) == "a␛b")
    }

    @Test func csi_colour_and_cursor_sequences_collapse() {
        #expect(TextSanitizer.sanitize("\u{1B}[31mred\u{1B}[0m") == "␛red␛")
        #expect(TextSanitizer.sanitize("x\u{1B}[2J\u{1B}[?1049hy") == "x␛␛y")
        #expect(TextSanitizer.sanitize("\u{1B}[38;5;196mX") == "␛X")
    }

    @Test func c1_csi_and_c1_osc_collapse_like_their_escape_forms() {
        #expect(TextSanitizer.sanitize("x\u{9B}2Jy") == "x␛y")
        #expect(TextSanitizer.sanitize("x\u{9D}0;t\u{9C}y") == "x␛y")
        #expect(TextSanitizer.sanitize("x\u{85}y") == "x\u{FFFD}y")
    }

    @Test func other_escape_forms_collapse() {
        #expect(TextSanitizer.sanitize("a\u{1B}Pq#0\u{1B}\\b") == "a␛b")  // DCS (sixel)
        #expect(TextSanitizer.sanitize("a\u{1B}(0b") == "a␛b")  // nF: line-drawing charset
        #expect(TextSanitizer.sanitize("a\u{1B}cb") == "a␛b")  // RIS: full reset
        #expect(TextSanitizer.sanitize("a\u{1B}") == "a␛")  // ESC at the end
    }

    @Test func an_unterminated_osc_drops_only_its_introducer() {
        #expect(TextSanitizer.sanitize("a\u{1B}]0;never ends") == "a␛0;never ends")
    }

    @Test func c0_controls_and_del_become_control_pictures() {
        #expect(TextSanitizer.sanitize("ding\u{07}") == "ding␇")
        #expect(TextSanitizer.sanitize("a\tb\nc\rd") == "a␉b␊c␍d")
        #expect(TextSanitizer.sanitize("\u{0}\u{7F}") == "␀␡")
        #expect(TextSanitizer.sanitize("\u{08}") == "␈")
    }

    @Test func bidi_overrides_and_isolates_become_visible() {
        let rlo = "invoice\u{202E}fdp.exe"
        #expect(TextSanitizer.sanitize(rlo) == "invoice⇆fdp.exe")
        #expect(TextSanitizer.sanitize("\u{2066}x\u{2069}\u{200F}\u{061C}") == "⇆x⇆⇆⇆")
    }

    @Test func stray_zero_width_characters_become_visible() {
        #expect(TextSanitizer.sanitize("a\u{200B}b") == "a␣b")
        #expect(TextSanitizer.sanitize("\u{FEFF}x") == "␣x")
        #expect(TextSanitizer.sanitize("a\u{200D}b") == "a␣b")
        #expect(TextSanitizer.sanitize("\u{2060}") == "␣")
    }

    @Test func joiners_inside_emoji_and_words_are_kept() {
        let family = "👨\u{200D}👩\u{200D}👧\u{200D}👦"
        #expect(TextSanitizer.sanitize(family) == family)
        let heart = "❤\u{FE0F}\u{200D}🔥"
        #expect(TextSanitizer.sanitize(heart) == heart)
        let persian = "می\u{200C}خواهم"
        #expect(TextSanitizer.sanitize(persian) == persian)
        let england = "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}"
        #expect(TextSanitizer.sanitize(england) == england)
    }

    @Test func legitimate_text_is_untouched() {
        let texts = ["👍🏽", "🇫🇷🇯🇵", "日本語", "e\u{301}te\u{301}", "Zoë Ångström", "한국어", "١٢٣ عربى"]
        for text in texts {
            #expect(TextSanitizer.sanitize(text) == text)
        }
    }

    @Test func unassigned_and_noncharacters_become_replacement_characters() {
        let nonCharacters = "a" + String(Unicode.Scalar(0xFFFF)!) + "b" + String(Unicode.Scalar(0xFDD0)!)
        #expect(TextSanitizer.sanitize(nonCharacters) == "a\u{FFFD}b\u{FFFD}")
        #expect(TextSanitizer.sanitize("\u{0378}") == "\u{FFFD}")
    }

    @Test func line_separators_become_visible() {
        #expect(TextSanitizer.sanitize("a\u{2028}b\u{2029}") == "a␤b␤")
    }

    @Test func sanitising_twice_changes_nothing() {
        let hostile = "\u{1B}]0;t\u{07}\u{9B}1m\u{202E}\u{200B}\u{7}\t👨\u{200D}👩"
        let once = TextSanitizer.sanitize(hostile)
        #expect(TextSanitizer.sanitize(once) == once)
        #expect(isInert(once))
    }

    @Test func a_100_kb_hostile_string_is_fully_neutralised() {
        // Given 100 KB mixing every hostile class
        let unit = "ok\u{1B}[31m\u{1B}]0;x\u{07}\u{9B}2J\u{202E}\u{200B}\u{7}\u{7F}日👍🏽"
        let big = String(repeating: unit, count: 100_000 / unit.utf8.count + 1)
        #expect(big.utf8.count >= 100_000)
        // When it is sanitised
        let clean = TextSanitizer.sanitize(big)
        // Then nothing active survives and every unit kept its visible text
        #expect(isInert(clean))
        #expect(clean.ranges(of: "日👍🏽").count == big.ranges(of: "日👍🏽").count)
    }
}
