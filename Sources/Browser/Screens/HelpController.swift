import EntityCache
import ScreenSeam
import Terminal

/// The `?` screen: every key the browser understands.
@MainActor
public final class HelpController: ScreenController {
    public let screenID: ScreenID
    public let breadcrumb = "Help"
    public let kindTitle = "Keys"
    public var statusSummary: String { "Esc to go back" }
    let environment: BrowserEnvironment
    var cursor = ListCursor()

    /// The keys, then the command line's commands.
    static let entries: [(keys: String, action: String)] =
        keys + [(":", "command line: Tab completes, ↑ ↓ history, Esc closes")]
        + CommandPalette.commands.map { command in
            (":" + command.name + (command.arguments.isEmpty ? "" : " " + command.arguments), command.summary)
        }

    static let keys: [(keys: String, action: String)] = [
        ("↑ ↓  k j", "move the cursor"),
        ("PgUp PgDn  Space", "move a page"),
        ("g G  Home End", "first / last row"),
        ("Enter → l", "open the selected row"),
        ("Enter on a field", "change it, or read it whole"),
        ("v", "read a field's whole value"),
        ("d", "details of the selected row"),
        ("e", "change the entity (F4: a field's values)"),
        ("a", "add a new entity to this list"),
        ("L", "link an existing entity here"),
        ("x  Delete", "delete the selected entity (asks first)"),
        ("y  Y", "copy the row's name / entity as JSON"),
        ("c", "chart the list: a number over a date"),
        ("!", "what the service offers to do here"),
        ("o", "outbox: changes not yet sent"),
        ("Esc ← h Backspace", "back"),
        ("/", "filter (Enter keeps it, Esc clears it)"),
        ("s", "sort by the next column, ▲ then ▼"),
        ("< >", "scroll columns sideways when they do not fit (‹ › in the header)"),
        ("- +", "hide the first column shown / show hidden columns"),
        ("r", "refresh this screen from the service"),
        ("i", "request log: what was fetched, how fast"),
        ("?", "this help"),
        ("q  Ctrl-C", "quit"),
        ("mouse", "click selects, double-click opens, breadcrumb click goes back, wheel scrolls"),
    ]

    init(environment: BrowserEnvironment) {
        self.environment = environment
        self.screenID = environment.nextScreenID()
        cursor.setCount(Self.entries.count)
    }

    public func handle(_ key: Key) -> ScreenAction {
        switch key {
        case .up, .char("k"), .mouseWheelUp: cursor.scroll(by: -1)
        case .down, .char("j"), .mouseWheelDown: cursor.scroll(by: 1)
        case .char("?"), .char("q"): return .pop
        default: return .ignored
        }
        environment.setNeedsDisplay()
        return .handled
    }

    public func layout(rows: Int, columns: Int) {
        cursor.setPageSize(rows)
    }

    public func render(into buffer: inout ScreenBuffer, rows: Range<Int>) {
        for (offset, index) in (cursor.top..<min(Self.entries.count, cursor.top + rows.count)).enumerated() {
            let line = rows.lowerBound + offset
            let next = buffer.put(
                Self.entries[index].keys, row: line, column: 2, width: 20, style: CellStyle([.bold], role: .accent))
            buffer.put(Self.entries[index].action, row: line, column: next + 1)
        }
    }
}
