/// How many terminal columns text occupies, measured the way the terminal advances its cursor.
///
/// Terminals that follow `wcwidth` (xterm, VTE, tmux 3.3 and the glibc that ncurses measures with)
/// do not know grapheme clusters: they advance scalar by scalar. So a cluster is as wide as the
/// terminal cells it fills (see ``cells(of:)``): every spacing scalar starts a cell of its own width,
/// zero-width scalars join the cell before them, and whatever follows a zero-width joiner joins too
/// (tmux ≥ 3.3 does that for emoji ZWJ sequences). Measured in tmux 3.3a on glibc 2.36:
///
/// | text | columns | why |
/// |---|---|---|
/// | `भारत` (4 clusters, 4 scalars) | 4 | the vowel sign `ा` is a spacing mark: a column of its own |
/// | `ट्रे` (1 cluster) | 2 | `ट` `्` `र` `े`: two spacing scalars |
/// | `จำ` (1 cluster) | 2 | `ำ` (sara am) is a spacing letter |
/// | `e` + U+0301, `각` from conjoining jamo | 1, 2 | marks and medial/final jamo take no column |
/// | `👍🏽` | 4 | the skin tone is a wide scalar of its own |
/// | `🇫🇷` | 2 | two narrow regional indicators |
/// | `❤️` (U+2764 U+FE0F) | 1 | VS16 does not widen |
/// | `👨‍👩‍👧` | 2 | everything after each ZWJ joins the first cell |
///
/// Scalar widths follow glibc's `wcwidth` (0 for marks, format characters and Hangul medial and
/// final jamo; 2 for East Asian Wide/Fullwidth and emoji presentation; 1 otherwise), computed here
/// so that widths do not depend on the process locale and headless tests agree with the terminal.
public enum DisplayWidth {
    /// Where padding goes when text is narrower than its field.
    public enum Alignment: Hashable, Sendable {
        case leading, trailing, center
    }

    /// The columns one grapheme cluster takes: the sum of its ``cells(of:)``' widths.
    ///
    /// 0 only for clusters of control characters (which ``TextSanitizer`` replaces before drawing).
    public static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        let first = scalars.first!
        if scalars.index(after: scalars.startIndex) == scalars.endIndex {
            if isControl(first) { return 0 }
            return max(width(of: first), 1)  // a lone mark sits on a dotted circle
        }
        var total = 0
        layout(character) { _, cellWidth in total += cellWidth }
        return total
    }

    /// The width of a string: the sum over its grapheme clusters.
    public static func width(of text: some StringProtocol) -> Int {
        var total = 0
        for character in text { total += width(of: character) }
        return total
    }

    /// `text` cut to at most `columns` cells, ending in `…` when anything was cut.
    ///
    /// Never splits a cluster; a wide cluster that would straddle the limit is dropped whole.
    public static func clip(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        if width(of: text) <= columns { return text }
        var result = ""
        var used = 0
        for character in text {
            let w = width(of: character)
            if used + w > columns - 1 { break }
            result.append(character)
            used += w
        }
        result.append("…")
        return result
    }

    /// `text` clipped (with `…`) and padded with spaces to exactly `columns` cells.
    public static func pad(_ text: String, to columns: Int, alignment: Alignment = .leading) -> String {
        guard columns > 0 else { return "" }
        let clipped = clip(text, to: columns)
        let gap = columns - width(of: clipped)
        guard gap > 0 else { return clipped }
        switch alignment {
        case .leading:
            return clipped + String(repeating: " ", count: gap)
        case .trailing:
            return String(repeating: " ", count: gap) + clipped
        case .center:
            let left = gap / 2
            return String(repeating: " ", count: left) + clipped + String(repeating: " ", count: gap - left)
        }
    }

    /// The columns one scalar advances the cursor by, as glibc's `wcwidth` counts: 0, 1 or 2.
    ///
    /// Controls count 0 here; ``isControl(_:)`` tells them apart from marks.
    public static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x7F { return value >= 0x20 ? 1 : 0 }
        if value < 0xA0 { return 0 }
        if isZeroWidth(scalar) { return 0 }
        if (0x1F1E6...0x1F1FF).contains(value) { return 1 }  // regional indicators are narrow
        if isEastAsianWide(value) || scalar.properties.isEmojiPresentation { return 2 }
        return 1
    }

    /// C0 and C1 controls and DEL: nothing a terminal draws.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value)
    }

    /// Scalars that take no column of their own and join the cell before them.
    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark:
            return true
        case .format:
            // Soft hyphen and the prepended concatenation marks (Arabic number signs …) are visible.
            switch value {
            case 0x00AD, 0x0600...0x0605, 0x06DD, 0x070F, 0x0890...0x0891, 0x08E2, 0x110BD, 0x110CD:
                return false
            default:
                return true
            }
        default:
            return value == 0x200B || (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value)
        }
    }

    /// East Asian Width W or F (emoji presentation is read from the scalar's properties).
    static func isEastAsianWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let mid = (low + high) / 2
            let range = wideRanges[mid]
            if value < range.lowerBound {
                high = mid - 1
            } else if value > range.upperBound {
                low = mid + 1
            } else {
                return true
            }
        }
        return false
    }

    /// East Asian Wide/Fullwidth blocks (UAX #11), sorted, excluding emoji which use the properties.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x2E99, 0x2E9B...0x2EF3, 0x2F00...0x2FD5,
        0x2FF0...0x2FFF, 0x3000...0x303E, 0x3041...0x3096, 0x3099...0x30FF, 0x3105...0x312F,
        0x3131...0x318E, 0x3190...0x31E5, 0x31EF...0x321E, 0x3220...0x3247, 0x3250...0xA48C,
        0xA490...0xA4C6, 0xA960...0xA97C, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
        0xFE30...0xFE52, 0xFE54...0xFE66, 0xFE68...0xFE6B, 0xFF01...0xFF60, 0xFFE0...0xFFE6,
        0x16FE0...0x16FE4, 0x16FF0...0x16FF1, 0x17000...0x187F7, 0x18800...0x18CD5, 0x18D00...0x18D08,
        0x1AFF0...0x1AFFE, 0x1B000...0x1B122, 0x1B132...0x1B132, 0x1B150...0x1B152, 0x1B155...0x1B155,
        0x1B164...0x1B167, 0x1B170...0x1B2FB, 0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248,
        0x1F250...0x1F251, 0x1F260...0x1F265, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
