import Terminal

/// Text from a server cut into screen lines: split at its line breaks, sanitised, then wrapped
/// at spaces where a line has one and between grapheme clusters where it has none, measured
/// with ``Terminal/DisplayWidth``.
enum TextWrapper {
    /// The lines of `text` at most `width` columns wide (a cluster wider than `width` gets a line
    /// of its own). Tabs become four spaces; every other control shows as its picture.
    static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var result: [String] = []
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let expanded = line.contains("\t") ? line.replacingOccurrences(of: "\t", with: "    ") : String(line)
            result += wrapLine(TextSanitizer.sanitize(expanded), width: width)
        }
        return result
    }

    /// One sanitised line without breaks, wrapped.
    static func wrapLine(_ line: String, width: Int) -> [String] {
        var lines: [String] = []
        var current: [(character: Character, width: Int)] = []
        var used = 0
        // Where the last space of `current` is: the preferred place to break.
        var lastSpace: Int?
        for character in line {
            let columns = DisplayWidth.width(of: character)
            if used + columns > width, !current.isEmpty {
                if character == " " {
                    // A space at the edge ends the line and is not carried over.
                    lines.append(String(current.map(\.character)))
                    current = []
                    used = 0
                    lastSpace = nil
                    continue
                }
                if let space = lastSpace, space > 0 {
                    lines.append(String(current[..<space].map(\.character)))
                    current = Array(current[(space + 1)...])
                    used = current.reduce(0) { $0 + $1.width }
                } else {
                    lines.append(String(current.map(\.character)))
                    current = []
                    used = 0
                }
                lastSpace = nil
            }
            if character == " " { lastSpace = current.count }
            current.append((character, columns))
            used += columns
        }
        lines.append(String(current.map(\.character)))
        return lines
    }
}
