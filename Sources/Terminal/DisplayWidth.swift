/// How many terminal columns text occupies, measured per grapheme cluster (Swift `Character`).
///
/// Deliberately not glibc's `wcwidth`, which counts emoji modifier and ZWJ sequences scalar by
/// scalar and so disagrees with modern terminals. Rules, for one cluster:
///
/// * 0 when every scalar is non-spacing (combining marks, variation selectors, format chars);
/// * 2 for emoji presentation: a base with `Emoji_Presentation`, anything followed by U+FE0F,
///   emoji modifier (skin tone) and ZWJ sequences, regional-indicator flags;
/// * 2 when the first scalar is East Asian Wide or Fullwidth (CJK, Hangul, kana, fullwidth forms);
/// * 1 otherwise.
public enum DisplayWidth {
    /// Where padding goes when text is narrower than its field.
    public enum Alignment: Hashable, Sendable {
        case leading, trailing, center
    }

    /// The width of one grapheme cluster: 0, 1 or 2.
    public static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.value < 0x7F, scalars.count == 1 { return first.value >= 0x20 ? 1 : 0 }
        if scalars.allSatisfy(isZeroWidth) { return 0 }
        let props = first.properties
        if props.isEmojiPresentation { return 2 }
        if props.isEmoji, scalars.count > 1 {
            for scalar in scalars.dropFirst() {
                if scalar.value == 0xFE0F || scalar.value == 0x200D || scalar.properties.isEmojiModifier {
                    return 2
                }
            }
        }
        return isEastAsianWide(first.value) ? 2 : 1
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

    /// Scalars that take no column of their own.
    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format:
            return true
        default:
            return scalar.value == 0x200B || (0x1160...0x11FF).contains(scalar.value)
        }
    }

    /// East Asian Width W or F for the first scalar of a cluster (emoji are handled separately).
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
