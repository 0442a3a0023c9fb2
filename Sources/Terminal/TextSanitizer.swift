/// Makes any string safe to put in a terminal cell: the one gate for text from a server.
///
/// Nothing that could steer the terminal survives, and nothing invisible stays invisible.
/// The replacements (each one column wide) are:
///
/// | input | shown as |
/// |---|---|
/// | C0 control U+0000–U+001F (NUL, BEL, TAB, LF, CR, …) | its Control Picture (U+2400 + code): `␀` `␇` `␉` `␊` |
/// | DEL U+007F | `␡` |
/// | a whole escape sequence: ESC + CSI/OSC/DCS/SOS/PM/APC/nF/Fe, or C1 CSI/OSC/… (0x9B, 0x9D…) | one `␛` |
/// | any other C1 control U+0080–U+009F | `�` |
/// | bidi overrides, embeddings, isolates and marks (U+202A–E, U+2066–9, U+200E/F, U+061C) | `⇆` |
/// | zero-width and other invisible format characters (U+200B, U+2060, U+FEFF, stray ZWJ/ZWNJ, stray tags, …) | `␣` |
/// | U+2028 / U+2029 line / paragraph separators | `␤` |
/// | unassigned code points and noncharacters | `�` |
///
/// Kept as they are: ZWJ between emoji (👨‍👩‍👧), ZWNJ between letters or marks (Persian, Indic),
/// tag characters after U+1F3F4 (subdivision flags), variation selectors, combining marks.
/// U+00AD soft hyphen is dropped. OSC/DCS strings are collapsed up to their terminator
/// (BEL, ESC `\` or ST); an unterminated one collapses only its introducer, and the rest shows
/// as plain text (harmless once the ESC is gone). The result is idempotent: sanitising twice
/// changes nothing more.
public enum TextSanitizer {
    /// Placeholder for an escape sequence.
    public static let escapePlaceholder: Character = "\u{241B}"
    /// Placeholder for a bidi control.
    public static let bidiPlaceholder: Character = "\u{21C6}"
    /// Placeholder for an invisible format character.
    public static let invisiblePlaceholder: Character = "\u{2423}"
    /// Placeholder for invalid, unassigned or C1 code points.
    public static let replacement: Character = "\u{FFFD}"

    /// Returns `text` with every control, escape sequence, bidi and invisible character replaced.
    public static func sanitize(_ text: String) -> String {
        if isPlainASCII(text) { return text }
        let scalars = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        output.reserveCapacity(scalars.count)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            let value = scalar.value
            switch value {
            case 0x1B:
                index = EscapeSequence.end(in: scalars, from: index + 1, introducedBy: nil)
                output.append(contentsOf: escapePlaceholder.unicodeScalars)
                continue
            case 0x9B, 0x9D, 0x90, 0x98, 0x9E, 0x9F:
                index = EscapeSequence.end(in: scalars, from: index + 1, introducedBy: value)
                output.append(contentsOf: escapePlaceholder.unicodeScalars)
                continue
            case 0x00...0x1F:
                output.append(Unicode.Scalar(0x2400 + value)!)
            case 0x7F:
                output.append("\u{2421}")
            case 0x80...0x9F:
                output.append(contentsOf: replacement.unicodeScalars)
            case 0x20...0x7E:
                output.append(scalar)
            default:
                appendNonASCII(scalar, at: index, in: scalars, to: &output)
            }
            index += 1
        }
        return String(output)
    }

    /// Whether `text` is printable ASCII only (the common case, returned untouched).
    static func isPlainASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    private static func appendNonASCII(
        _ scalar: Unicode.Scalar, at index: Int, in scalars: [Unicode.Scalar],
        to output: inout String.UnicodeScalarView
    ) {
        let value = scalar.value
        switch value {
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C:
            output.append(contentsOf: bidiPlaceholder.unicodeScalars)
            return
        case 0x2028, 0x2029:
            output.append("\u{2424}")
            return
        case 0x00AD:
            return
        case 0x200D:
            let keep =
                output.last.map(isEmojiJoinable) == true
                && scalars.indices.contains(index + 1) && isEmojiJoinable(scalars[index + 1])
            output.append(contentsOf: keep ? [scalar] : Array(invisiblePlaceholder.unicodeScalars))
            return
        case 0x200C:
            let keep =
                output.last.map(isLetterOrMark) == true
                && scalars.indices.contains(index + 1) && isLetterOrMark(scalars[index + 1])
            output.append(contentsOf: keep ? [scalar] : Array(invisiblePlaceholder.unicodeScalars))
            return
        case 0xE0020...0xE007F:
            let keep = output.last.map { $0.value == 0x1F3F4 || (0xE0020...0xE007E).contains($0.value) } == true
            output.append(contentsOf: keep ? [scalar] : Array(invisiblePlaceholder.unicodeScalars))
            return
        default:
            break
        }
        let properties = scalar.properties
        if properties.isNoncharacterCodePoint {
            output.append(contentsOf: replacement.unicodeScalars)
            return
        }
        switch properties.generalCategory {
        case .unassigned, .surrogate:
            output.append(contentsOf: replacement.unicodeScalars)
        case .format:
            output.append(contentsOf: invisiblePlaceholder.unicodeScalars)
        default:
            output.append(scalar)
        }
    }

    /// Scalars a ZWJ may join: non-ASCII emoji, skin-tone modifiers and the emoji variation selector.
    private static func isEmojiJoinable(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value == 0xFE0F { return true }
        return scalar.value > 0x7F && (scalar.properties.isEmoji || scalar.properties.isEmojiModifier)
    }

    private static func isLetterOrMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }
}
