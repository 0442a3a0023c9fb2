/// Text that tries to take over a terminal, for the `--hostile` data variant.
///
/// Every string here is something a real server could send: escape sequences that set the window
/// title, colours or cursor (CSI, OSC, C1 forms), bells, bidi overrides that reverse what follows,
/// zero-width characters, emoji with joiners and modifiers, wide CJK text, line breaks, and one string
/// of 100 KB. Each starts with `!` or a control character, so that sorted by name they come first.
public enum HostileStrings {
    /// The 100 KB string: `!Long` and then `Long` repeated.
    public static let long = "!" + String(repeating: "Long", count: 25_600)

    /// Hostile last names, one per person from person 2 on (person 1 stays the seed's Bob Samson).
    public static let names: [String] = [
        "!\u{1B}]0;pwned-title\u{07}OscTitle",
        "!\u{1B}[31;1mRed\u{1B}[0mCsiColour",
        "!\u{1B}[2J\u{1B}[HClearScreen",
        "!\u{1B}[?25l\u{1B}[?1049lCursorOff",
        "!Bell\u{07}\u{07}Ring",
        "!\u{9B}32mC1Csi\u{9D}0;c1-title\u{9C}",
        "!abc\u{202E}exe.txt\u{202C}Bidi",
        "!Zero\u{200B}Width\u{2060}\u{FEFF}Space",
        "!Family👨\u{200D}👩\u{200D}👧\u{200D}👦Zwj",
        "!Thumbs👍🏽Flag🏳️\u{200D}🌈",
        "!Line\nBreak\rTab\tEnd",
        "!\u{1B}P1;2|dcs-payload\u{1B}\\Dcs",
        "!Wide日本語テキスト",
        long,
    ]

    /// Hostile car models, for the cars of the first hostile people.
    public static let models: [String] = [
        "\u{1B}]2;car-title\u{1B}\\Model", "\u{1B}[7mReverse", "Rlo\u{202E}lvr", "🚗\u{200D}💨Zoom", long,
    ]

    /// A hostile maintenance description.
    public static let description = "Oil\u{1B}]52;c;cHduZWQ=\u{07}Clipboard\u{1B}[5mBlink"
}
