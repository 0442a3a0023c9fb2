import ODataCore
import Terminal

/// `:`: a command line at the foot of the screen, with completion (Tab) and history (↑ ↓), as k9s and vim have.
///
/// Every key action is also a command (`:outbox` is `o`), and a few have no key: `:open SET` (or just the set's
/// name) opens any entity set, `:filter TEXT`, `:chart Y by X`, `:where`. The palette only edits and parses;
/// ``BrowserApp`` runs what it returns.
@MainActor
final class CommandPalette {
    /// One command: its name, what follows it, what it does, and the key it stands for (if any).
    struct Command {
        var name: String
        var arguments = ""
        var summary: String
        var key: Key?
    }

    static let commands: [Command] = [
        Command(name: "open", arguments: "SET", summary: "open an entity set's list (or type its name)"),
        Command(
            name: "filter", arguments: "TEXT | FIELD OP VALUE",
            summary: "search this list, or keep rows where a field compares (= != > >= < <= ~); none clears it; "
                + "Tab or F4 gives a field's values"),
        Command(name: "chart", arguments: "[Y by X]", summary: "chart this list, or a number over a date you name"),
        Command(name: "type", arguments: "TYPE", summary: "this list's entities of one derived type only"),
        Command(name: "where", summary: "show and copy the path of this screen"),
        Command(name: "export", arguments: "FILE", summary: "write this list to FILE.csv or FILE.json"),
        Command(
            name: "save", arguments: "FILE",
            summary: "save the media (a photo, a document) of this entity or the selected row to FILE"),
        Command(
            name: "upload", arguments: "FILE",
            summary: "replace that media (or the stream under the cursor) with FILE's content, once you say y"),
        Command(name: "theme", arguments: "NAME", summary: "dark, light, high-contrast or monochrome"),
        Command(
            name: "sort", arguments: "[COLUMN [desc]]", summary: "sort by a column (no name: the next one)",
            key: .char("s")),
        Command(name: "right", summary: "scroll the columns right", key: .char(">")),
        Command(name: "left", summary: "scroll the columns left", key: .char("<")),
        Command(
            name: "hide", arguments: "[COLUMN]", summary: "hide a column (no name: the first shown)", key: .char("-")),
        Command(name: "show", arguments: "[COLUMN]", summary: "show a hidden column (no name: all)", key: .char("+")),
        Command(name: "refresh", summary: "refresh this screen from the service", key: .char("r")),
        Command(name: "operations", summary: "what the service offers to do here", key: .char("!")),
        Command(name: "details", summary: "details of the selected row", key: .char("d")),
        Command(name: "add", summary: "add a new entity to this list", key: .char("a")),
        Command(name: "edit", summary: "change the selected entity", key: .char("e")),
        Command(
            name: "delete", summary: "delete the selected row (through a link entity: the link; asks first)",
            key: .char("x")),
        Command(name: "delete-entity", summary: "delete the selected entity itself, for every parent (asks first)"),
        Command(name: "link", summary: "link an existing entity here", key: .char("L")),
        Command(name: "yank", summary: "copy the selected row's name", key: .char("y")),
        Command(name: "yank-json", summary: "copy the selected entity as JSON", key: .char("Y")),
        Command(name: "outbox", summary: "changes not yet sent", key: .char("o")),
        Command(name: "log", summary: "the request log", key: .char("i")),
        Command(name: "help", summary: "keys and commands", key: .char("?")),
        Command(name: "back", summary: "go back", key: .escape),
        Command(name: "quit", summary: "quit (also :q)", key: .char("q")),
    ]

    /// What the user typed after `:`.
    private(set) var text = ""
    private(set) var isOpen = false
    /// Earlier command lines, oldest first (this session's).
    private(set) var history: [String] = []
    private var historyIndex: Int?
    /// The entity sets `:open` and completion know.
    let entitySets: [String]

    /// The fields `:filter` completes on the screen it was opened over (the service's `UI.SelectionFields` first).
    var filterFields: [String] = []

    /// A sentence above the line until the next key (why F4 listed nothing).
    var note: String?

    /// What a field can be, for `:filter FIELD = ` and Tab (``EntityListController/filterValues(forField:)``).
    var filterValues: (String) -> [String] = { _ in [] }

    /// The operations of the service itself, by name: typed as a command, they are invoked (issue 36).
    let operations: [String]

    init(entitySets: [String], operations: [String] = []) {
        self.entitySets = entitySets
        self.operations = operations
    }

    /// What a key did.
    enum Outcome: Equatable {
        case editing
        case closed
        case run(String)
        /// F4 with this line: the values of the field a `:filter` clause is being given a value for.
        case valueHelp(String)
    }

    func open(with line: String = "") {
        isOpen = true
        text = Self.fits(line) ? line : ""
        historyIndex = nil
        valuesOffered = nil
    }

    /// Closes it, as Esc does (a value help read meanwhile is shown in its place).
    func close() { isOpen = false }

    /// The longest line the palette takes.
    static let longestLine = 200

    /// Whether `line` could have been typed here: printable, and not longer than ``longestLine``.
    static func fits(_ line: String) -> Bool {
        line.count <= longestLine && line.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
    }

    /// The values last read for a field's completion, kept while the palette is open (a frame draws them again).
    private var valuesOffered: (field: String, values: [String])?

    func values(of field: String) -> [String] {
        if let valuesOffered, valuesOffered.field == field { return valuesOffered.values }
        let values = filterValues(field)
        valuesOffered = (field, values)
        return values
    }

    func handle(_ key: Key) -> Outcome {
        note = nil
        switch key {
        case .escape, .ctrl("c"):
            isOpen = false
            return .closed
        case .enter:
            isOpen = false
            let line = text.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { return .closed }
            if history.last != line { history.append(line) }
            if history.count > 100 { history.removeFirst() }
            return .run(line)
        case .backspace, .delete:
            if text.isEmpty {
                isOpen = false
                return .closed
            }
            text.removeLast()
        case .tab:
            complete()
        case .function(4):
            isOpen = false
            return .valueHelp(text)
        case .up:
            guard !history.isEmpty else { break }
            let index = max(0, (historyIndex ?? history.count) - 1)
            historyIndex = index
            text = history[index]
        case .down:
            guard let index = historyIndex else { break }
            if index + 1 < history.count {
                historyIndex = index + 1
                text = history[index + 1]
            } else {
                historyIndex = nil
                text = ""
            }
        case .char(let character):
            // Printable text only: a pasted escape sequence or control character never reaches the line.
            guard character.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }),
                text.count < Self.longestLine
            else { break }
            text.append(character)
        default:
            break
        }
        return .editing
    }

    /// What the line could become: command names, then entity set names (for the first word, or after `open`).
    var completions: [String] {
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2, parts[0] == "theme" {
            let prefix = parts[1].lowercased()
            return Theme.allCases.map(\.rawValue).filter { $0.hasPrefix(prefix) }.map { "theme " + $0 }
        }
        if parts.count == 2, parts[0] == "filter", let spot = TypedFilter.valueBeingTyped(String(parts[1])) {
            let prefix = spot.typed.lowercased()
            return values(of: spot.field).filter { $0.lowercased().hasPrefix(prefix) }.lazy.map {
                "filter " + spot.before + TypedFilter.typedValue($0)
            }.filter(Self.fits).prefix(100).map { $0 }
        }
        if parts.count == 2, parts[0] == "filter", !parts[1].contains(" ") {
            let prefix = parts[1].lowercased()
            return filterFields.filter { $0.lowercased().hasPrefix(prefix) }.map { "filter " + $0 }
        }
        if parts.count == 2 {
            guard parts[0] == "open" else { return [] }
            let prefix = parts[1].lowercased()
            return entitySets.filter { $0.lowercased().hasPrefix(prefix) }.map { "open " + $0 }
        }
        let prefix = text.lowercased()
        return Self.commands.map(\.name).filter { $0.hasPrefix(prefix) }
            + entitySets.filter { $0.lowercased().hasPrefix(prefix) }
            + operations.filter { $0.lowercased().hasPrefix(prefix) }
    }

    /// Tab: the longest text every completion starts with (the one completion, and a space after a command).
    private func complete() {
        let options = completions
        guard let first = options.first else {
            let parts = text.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0] == "filter", TypedFilter.valueBeingTyped(String(parts[1])) != nil {
                note = "No values here to complete; F4 opens the field's value list, where the service gives one."
            }
            return
        }
        if options.count == 1 {
            text = first + (Self.commands.contains { $0.name == first && !$0.arguments.isEmpty } ? " " : "")
            return
        }
        var common = first
        for option in options.dropFirst() {
            while !option.lowercased().hasPrefix(common.lowercased()) { common.removeLast() }
        }
        if common.count > text.count { text = common }
    }

    /// A command line, parsed.
    enum Parsed: Equatable {
        case quit
        case key(Key)
        case open(String)
        case filter(String)
        case chart(y: String, x: String)
        case `where`
        /// `:type NAME`: the list narrowed to a derived type.
        case typeCast(String)
        case theme(String)
        case export(String)
        /// `:save FILE`: a stream to a file.
        case save(String)
        /// `:upload FILE`: a file's content in place of a stream's.
        case upload(String)
        case hide(String)
        case show(String)
        case sort(column: String, descending: Bool)
        case deleteEntity
        /// An operation of the service, by its name.
        case invoke(String)
        case unknown(String)
    }

    func parse(_ line: String) -> Parsed {
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        let name = parts[0].lowercased()
        let rest = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        switch name {
        case "q", "q!", "quit", "exit": return .quit
        case "open":
            return entitySets.first { $0.lowercased() == rest.lowercased() }.map(Parsed.open) ?? .unknown(line)
        case "filter": return .filter(rest)
        case "type" where !rest.isEmpty: return .typeCast(rest)
        case "where": return .where
        case "delete-entity" where rest.isEmpty: return .deleteEntity
        case "theme": return .theme(rest)
        case "export" where !rest.isEmpty: return .export(rest)
        case "save" where !rest.isEmpty: return .save(rest)
        case "upload" where !rest.isEmpty: return .upload(rest)
        case "hide" where !rest.isEmpty: return .hide(rest)
        case "sort" where !rest.isEmpty:
            var words = rest.split(separator: " ").map(String.init)
            let direction = words.count > 1 ? words.removeLast().lowercased() : "asc"
            guard ["asc", "desc"].contains(direction) else { return .unknown(line) }
            return .sort(column: words.joined(separator: " "), descending: direction == "desc")
        case "show" where !rest.isEmpty: return .show(rest)
        case "chart" where !rest.isEmpty:
            let words = rest.split(separator: " ").map(String.init)
            guard words.count == 3, words[1] == "by" else { return .unknown(line) }
            return .chart(y: words[0], x: words[2])
        default:
            if rest.isEmpty, let command = Self.commands.first(where: { $0.name == name }) {
                if name == "chart" { return .key(.char("c")) }
                if let key = command.key { return .key(key) }
            }
            if rest.isEmpty, let set = entitySets.first(where: { $0.lowercased() == name }) { return .open(set) }
            if rest.isEmpty, let operation = operations.first(where: { $0.lowercased() == name }) {
                return .invoke(operation)
            }
            return .unknown(line)
        }
    }

    /// The prompt on the status row and up to `rows` completions above it (nearest the prompt last).
    func render(into buffer: inout ScreenBuffer, completionRows rows: Int) {
        let bottom = buffer.size.rows - 1
        let width = buffer.size.columns
        buffer.fill(row: bottom, style: CellStyle(role: .status))
        var column = buffer.put(":", row: bottom, column: 0, style: CellStyle([.bold], role: .accent))
        // The end of a long line stays in view.
        let room = max(1, width - 2)
        let shown = text.count > room ? String(text.suffix(room)) : text
        column = buffer.put(shown, row: bottom, column: column, width: room)
        buffer.put(" ", row: bottom, column: min(width - 1, column), style: CellStyle([.reverse]))
        var lowest = bottom - 1
        if let note, lowest >= 1 {
            buffer.fill(row: lowest, style: CellStyle(role: .status))
            buffer.put(" " + note, row: lowest, column: 0, width: width, style: CellStyle(role: .accent))
            lowest -= 1
        }
        let options = Array(completions.prefix(max(0, rows)))
        guard !text.isEmpty || options.count > 0 else { return }
        for (index, option) in options.reversed().enumerated() {
            let row = lowest - index
            guard row >= 1 else { break }
            buffer.fill(row: row, style: CellStyle(role: .status))
            let summary =
                Self.commands.first { $0.name == option }.map { command in
                    (command.arguments.isEmpty ? "" : command.arguments + "  ") + command.summary
                } ?? (option.hasPrefix("open ") || entitySets.contains(option) ? "entity set" : "")
            let next = buffer.put(
                " " + option, row: row, column: 0, width: min(width, max(24, option.count + 2)),
                style: CellStyle([.bold]))
            buffer.put(
                summary, row: row, column: next + 1, width: max(0, width - next - 1), style: CellStyle(role: .muted))
        }
    }
}
