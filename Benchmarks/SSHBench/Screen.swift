// A small model of what an xterm shows, fed the bytes a session receives, so that a press is credited with the
// frame that shows its effect (the list's "N of M" on the status line) instead of with whatever arrives first.
//
// It follows what ncurses sends for xterm-256color: cursor addressing and movement, erases, character repeat,
// insert and delete of characters and lines, scroll regions, and text (UTF-8, one cell a scalar; the status line
// the benchmark reads is narrow text). Attributes, modes and strings (OSC, APC, DCS) are read past.
struct Screen {
    let columns: Int
    let rows: Int
    private(set) var cells: [[Unicode.Scalar]]
    private var row = 0
    private var column = 0
    private var wrapPending = false
    private var top = 0
    private var bottom: Int
    private var saved = (row: 0, column: 0)
    private var last: Unicode.Scalar = " "
    private var parser = Parser.ground
    private var parameters: [Int] = []
    private var current: Int?
    private var utf8: [UInt8] = []
    private var utf8Needed = 0

    private enum Parser {
        case ground, escape, escapeIntermediate, csi, string, stringEscape
    }

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        bottom = rows - 1
        cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
    }

    /// The screen's lines as text, trailing blanks kept.
    var lines: [String] { cells.map { String(String.UnicodeScalarView($0)) } }

    /// The cursor position the list's status line shows ("3 of 200": 3), read from the lowest line that has one.
    var listPosition: Int? {
        for line in lines.reversed() {
            guard let range = line.range(of: #"\d+ of \d+"#, options: .regularExpression) else { continue }
            return Int(line[range].prefix { $0.isNumber })
        }
        return nil
    }

    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes { feed(byte) }
    }

    private mutating func feed(_ byte: UInt8) {
        switch parser {
        case .ground: ground(byte)
        case .escape: escape(byte)
        case .escapeIntermediate: parser = .ground  // ESC ( B and the like: the final byte ends it
        case .csi: csi(byte)
        case .string:
            if byte == 0x07 { parser = .ground } else if byte == 0x1B { parser = .stringEscape }
        case .stringEscape:
            parser = byte == 0x5C ? .ground : .string
        }
    }

    private mutating func ground(_ byte: UInt8) {
        if utf8Needed > 0 {
            utf8.append(byte)
            utf8Needed -= 1
            if utf8Needed == 0 {
                let scalar = String(decoding: utf8, as: UTF8.self).unicodeScalars.first ?? "?"
                utf8 = []
                put(scalar)
            }
            return
        }
        switch byte {
        case 0x1B: parser = .escape
        case 0x0D:
            column = 0
            wrapPending = false
        case 0x0A, 0x0B, 0x0C: lineFeed()
        case 0x08:
            column = max(0, column - 1)
            wrapPending = false
        case 0x09:
            column = min(columns - 1, (column / 8 + 1) * 8)
            wrapPending = false
        case 0x00..<0x20, 0x7F: break
        case 0xC0..<0xE0:
            utf8 = [byte]
            utf8Needed = 1
        case 0xE0..<0xF0:
            utf8 = [byte]
            utf8Needed = 2
        case 0xF0..<0xF8:
            utf8 = [byte]
            utf8Needed = 3
        case 0x80..<0xC0: break
        default: put(Unicode.Scalar(byte))
        }
    }

    private mutating func escape(_ byte: UInt8) {
        parser = .ground
        switch byte {
        case UInt8(ascii: "["):
            parser = .csi
            parameters = []
            current = nil
        case UInt8(ascii: "]"), UInt8(ascii: "_"), UInt8(ascii: "P"), UInt8(ascii: "^"), UInt8(ascii: "X"):
            parser = .string
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "#"):
            parser = .escapeIntermediate
        case UInt8(ascii: "7"): saved = (row, column)
        case UInt8(ascii: "8"):
            (row, column) = saved
            wrapPending = false
        case UInt8(ascii: "D"): lineFeed()
        case UInt8(ascii: "E"):
            column = 0
            lineFeed()
        case UInt8(ascii: "M"): reverseIndex()
        case UInt8(ascii: "c"): self = Screen(columns: columns, rows: rows)
        default: break
        }
    }

    private mutating func csi(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            current = (current ?? 0) * 10 + Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: ";"), UInt8(ascii: ":"):
            parameters.append(current ?? 0)
            current = nil
        case 0x20...0x2F, UInt8(ascii: "<")...UInt8(ascii: "?"):
            break  // intermediates and private markers: the final byte still decides
        default:
            parameters.append(current ?? 0)
            parser = .ground
            perform(byte)
        }
    }

    /// The nth parameter, with 0 and absent read as `fallback`.
    private func parameter(_ index: Int, _ fallback: Int = 1) -> Int {
        index < parameters.count && parameters[index] != 0 ? parameters[index] : fallback
    }

    private mutating func perform(_ final: UInt8) {
        wrapPending = false
        switch final {
        case UInt8(ascii: "H"), UInt8(ascii: "f"):
            row = clampRow(parameter(0) - 1)
            column = clampColumn(parameter(1) - 1)
        case UInt8(ascii: "A"): row = max(top, row - parameter(0))
        case UInt8(ascii: "B"), UInt8(ascii: "e"): row = min(bottom, row + parameter(0))
        case UInt8(ascii: "C"), UInt8(ascii: "a"): column = clampColumn(column + parameter(0))
        case UInt8(ascii: "D"): column = clampColumn(column - parameter(0))
        case UInt8(ascii: "G"), UInt8(ascii: "`"): column = clampColumn(parameter(0) - 1)
        case UInt8(ascii: "d"): row = clampRow(parameter(0) - 1)
        case UInt8(ascii: "K"):
            switch parameter(0, 0) {
            case 1: blank(row: row, from: 0, to: column + 1)
            case 2: blank(row: row, from: 0, to: columns)
            default: blank(row: row, from: column, to: columns)
            }
        case UInt8(ascii: "J"):
            switch parameter(0, 0) {
            case 1:
                for line in 0..<row { blank(row: line, from: 0, to: columns) }
                blank(row: row, from: 0, to: column + 1)
            case 2, 3:
                for line in 0..<rows { blank(row: line, from: 0, to: columns) }
            default:
                blank(row: row, from: column, to: columns)
                for line in (row + 1)..<rows { blank(row: line, from: 0, to: columns) }
            }
        case UInt8(ascii: "X"): blank(row: row, from: column, to: min(columns, column + parameter(0)))
        case UInt8(ascii: "b"): for _ in 0..<parameter(0) { put(last) }
        case UInt8(ascii: "@"):
            let count = min(parameter(0), columns - column)
            cells[row].insert(contentsOf: Array(repeating: " ", count: count), at: column)
            cells[row].removeLast(count)
        case UInt8(ascii: "P"):
            let count = min(parameter(0), columns - column)
            cells[row].removeSubrange(column..<(column + count))
            cells[row].append(contentsOf: Array(repeating: " ", count: count))
        case UInt8(ascii: "L"):
            guard row >= top, row <= bottom else { break }
            for _ in 0..<min(parameter(0), bottom - row + 1) {
                cells.remove(at: bottom)
                cells.insert(blankLine, at: row)
            }
        case UInt8(ascii: "M"):
            guard row >= top, row <= bottom else { break }
            for _ in 0..<min(parameter(0), bottom - row + 1) {
                cells.remove(at: row)
                cells.insert(blankLine, at: bottom)
            }
        case UInt8(ascii: "S"): for _ in 0..<parameter(0) { scrollUp() }
        case UInt8(ascii: "T"): for _ in 0..<parameter(0) { scrollDown() }
        case UInt8(ascii: "r"):
            top = clampRow(parameter(0) - 1)
            bottom = clampRow(parameter(1, rows) - 1)
            if top >= bottom { (top, bottom) = (0, rows - 1) }
            (row, column) = (0, 0)
        default: break  // SGR, modes, reports: nothing shown changes
        }
    }

    private var blankLine: [Unicode.Scalar] { Array(repeating: " ", count: columns) }
    private func clampRow(_ value: Int) -> Int { min(max(value, 0), rows - 1) }
    private func clampColumn(_ value: Int) -> Int { min(max(value, 0), columns - 1) }

    private mutating func blank(row line: Int, from start: Int, to end: Int) {
        guard start < end else { return }
        for index in max(0, start)..<min(columns, end) { cells[line][index] = " " }
    }

    private mutating func put(_ scalar: Unicode.Scalar) {
        if wrapPending {
            column = 0
            lineFeed()
        }
        cells[row][column] = scalar
        last = scalar
        if column == columns - 1 { wrapPending = true } else { column += 1 }
    }

    private mutating func lineFeed() {
        wrapPending = false
        if row == bottom { scrollUp() } else { row = min(rows - 1, row + 1) }
    }

    private mutating func reverseIndex() {
        wrapPending = false
        if row == top { scrollDown() } else { row = max(0, row - 1) }
    }

    private mutating func scrollUp() {
        cells.remove(at: top)
        cells.insert(blankLine, at: bottom)
    }

    private mutating func scrollDown() {
        cells.remove(at: bottom)
        cells.insert(blankLine, at: top)
    }
}
