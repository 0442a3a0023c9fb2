import Terminal

/// Text in complex scripts and emoji sequences, as an OData server might send it (`--corpus`).
///
/// Each row is drawn as `label  text···|label`: the text from ``Corpus/textColumn``, then dots
/// (never blanks, which ncurses may skip with a cursor jump that would hide a drift) up to
/// ``Corpus/markerColumn``, where `|label` must start if the terminal advanced as we measured.
enum Corpus {
    static let textColumn = 10
    static let markerColumn = 44

    static let rows: [(label: String, text: String)] = [
        ("ascii", "plain text, the reference"),
        ("deva", "भारत ट्रेडिंग कंपनी"),
        ("beng", "বাংলাদেশ ক্ষমতা"),
        ("taml", "தமிழ்நாடு கொடி"),
        ("thai", "บริษัท จำกัด"),
        ("arab", "شركة السيارات"),
        ("hebr", "שָׁלוֹם חברה"),
        ("hang", "한국 자동차"),
        ("jamo", "\u{1100}\u{1161}\u{11A8} \u{1112}\u{1161}\u{11AB}"),
        ("accent", "Cafe\u{301} Zo\u{308}e"),
        ("zwj", "👨\u{200D}👩\u{200D}👧 🧑\u{200D}🤝\u{200D}🧑 🏳️\u{200D}🌈"),
        ("tonezwj", "👩🏽\u{200D}💻"),
        ("family4", "👨\u{200D}👩\u{200D}👧\u{200D}👦"),
        ("flags", "🇫🇷🇯🇵🇮🇳"),
        ("tones", "👍🏽 ✌🏿 👋🏻"),
        ("vs16", "❤️ 1️⃣ ☺️"),
        ("marks", "a\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}\u{307}"),
        ("lone", "\u{301}x"),
    ]

    /// Draws the corpus from `top`, one row per entry, as far as `frame` has rows (leaving the last).
    static func render(into frame: inout ScreenBuffer, from top: Int) {
        for (offset, row) in rows.enumerated() where top + offset < frame.size.rows - 1 {
            let line = top + offset
            frame.put(row.label, row: line, column: 0, width: textColumn)
            let end = frame.put(row.text, row: line, column: textColumn)
            frame.put(String(repeating: "·", count: max(0, markerColumn - end)), row: line, column: end)
            frame.put("|\(row.label)", row: line, column: markerColumn)
        }
    }
}
