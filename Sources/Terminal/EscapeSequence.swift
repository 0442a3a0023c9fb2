/// Finds where a terminal escape sequence ends, so ``TextSanitizer`` can collapse it whole.
///
/// Follows ECMA-48 closely enough to swallow what terminals would act on: CSI (parameter,
/// intermediate and final bytes), OSC / DCS / SOS / PM / APC strings (ended by BEL, ESC `\`
/// or C1 ST), nF sequences (intermediates then a final), and two-character Fe/Fp/Fs sequences.
enum EscapeSequence {
    /// The index just past the sequence.
    ///
    /// - Parameters:
    ///   - start: the index after the ESC (or after the C1 introducer).
    ///   - c1: the C1 introducer (0x9B CSI, 0x9D OSC, 0x90 DCS, 0x98 SOS, 0x9E PM, 0x9F APC), or
    ///     `nil` when the sequence began with ESC.
    static func end(in scalars: [Unicode.Scalar], from start: Int, introducedBy c1: UInt32?) -> Int {
        var kind = c1
        var index = start
        if kind == nil {
            guard index < scalars.count else { return index }
            let next = scalars[index].value
            switch next {
            case 0x5B: kind = 0x9B  // ESC [  → CSI
            case 0x5D: kind = 0x9D  // ESC ]  → OSC
            case 0x50: kind = 0x90  // ESC P  → DCS
            case 0x58: kind = 0x98  // ESC X  → SOS
            case 0x5E: kind = 0x9E  // ESC ^  → PM
            case 0x5F: kind = 0x9F  // ESC _  → APC
            case 0x20...0x2F:  // nF: intermediates, then one final byte
                while index < scalars.count, (0x20...0x2F).contains(scalars[index].value) { index += 1 }
                if index < scalars.count, (0x30...0x7E).contains(scalars[index].value) { index += 1 }
                return index
            case 0x30...0x7E:  // Fp / Fe / Fs: one character
                return index + 1
            default:  // ESC followed by something else: only the ESC goes
                return index
            }
            index += 1
        }
        if kind == 0x9B { return endOfControlSequence(scalars, from: index) }
        return endOfControlString(scalars, from: index, start: start)
    }

    /// CSI: parameters 0x30–0x3F, intermediates 0x20–0x2F, one final 0x40–0x7E.
    /// A byte outside those ends the (malformed) sequence before it.
    private static func endOfControlSequence(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        var index = start
        while index < scalars.count, (0x30...0x3F).contains(scalars[index].value) { index += 1 }
        while index < scalars.count, (0x20...0x2F).contains(scalars[index].value) { index += 1 }
        if index < scalars.count, (0x40...0x7E).contains(scalars[index].value) { index += 1 }
        return index
    }

    /// OSC and friends: everything up to BEL, ESC `\` or ST (0x9C). Unterminated: just the introducer.
    private static func endOfControlString(_ scalars: [Unicode.Scalar], from index: Int, start: Int) -> Int {
        var cursor = index
        while cursor < scalars.count {
            switch scalars[cursor].value {
            case 0x07, 0x9C:
                return cursor + 1
            case 0x1B:
                if cursor + 1 < scalars.count, scalars[cursor + 1].value == 0x5C { return cursor + 2 }
                return cursor  // a new escape starts: this string ends here
            default:
                cursor += 1
            }
        }
        return index
    }
}
