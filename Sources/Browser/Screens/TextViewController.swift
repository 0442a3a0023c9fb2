import EntityCache
import ScreenSeam
import Terminal

/// One long text in full: a property's value or a logged request, wrapped to the screen's
/// width and scrolled by line.
///
/// The text comes from a server, so it is sanitised like everything else (``TextWrapper``).
/// It is wrapped once per width, not per frame; a value longer than ``shownBytes`` shows its
/// beginning and says how much more there is.
@MainActor
public final class TextViewController: ScreenController {
    public let screenID: ScreenID
    public let breadcrumb: String
    public let kindTitle: String
    let environment: BrowserEnvironment
    let text: String
    /// The size of the whole value, when only the beginning of it is shown.
    let omittedBytes: Int
    var wrapped: [String] = []
    var wrappedWidth: Int?
    /// Scrolling: a cursor whose page is the screen, moved with the view.
    var cursor = ListCursor()
    /// End was pressed: stay at the end once the text is wrapped (keys can come before the first frame).
    var atEnd = false

    /// The most of one text that is wrapped (1 MiB: hundreds of screens).
    static let shownBytes = 1 << 20

    init(environment: BrowserEnvironment, text: String, breadcrumb: String, kindTitle: String) {
        self.environment = environment
        self.breadcrumb = breadcrumb
        self.kindTitle = kindTitle
        self.screenID = environment.nextScreenID()
        let (shown, omitted) = Self.beginning(of: text, bytes: Self.shownBytes)
        self.text = shown
        self.omittedBytes = omitted
    }

    /// At most `bytes` of `text`, cut at a scalar boundary, and how many bytes were left out.
    static func beginning(of text: String, bytes: Int) -> (String, Int) {
        let utf8 = text.utf8
        guard utf8.count > bytes else { return (text, 0) }
        var end = utf8.index(utf8.startIndex, offsetBy: bytes)
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return (
            String(String.UnicodeScalarView(text.unicodeScalars[..<end])),
            utf8.count - utf8.distance(from: utf8.startIndex, to: end)
        )
    }

    public var statusSummary: String {
        guard !wrapped.isEmpty else { return "" }
        let last = min(wrapped.count, cursor.top + cursor.pageSize)
        return "lines \(cursor.top + 1)–\(last) of \(wrapped.count)"
    }

    public func handle(_ key: Key) -> ScreenAction {
        atEnd = key == .end || key == .char("G")
        switch key {
        case .up, .char("k"), .mouseWheelUp: cursor.scroll(by: -1)
        case .down, .char("j"), .mouseWheelDown: cursor.scroll(by: 1)
        case .pageUp, .ctrl("b"): cursor.scroll(by: -cursor.pageSize)
        case .pageDown, .ctrl("f"), .char(" "): cursor.scroll(by: cursor.pageSize)
        case .home, .char("g"): cursor.scroll(by: -cursor.count)
        case .end, .char("G"): cursor.scroll(by: cursor.count)
        default: return .ignored
        }
        environment.setNeedsDisplay()
        return .handled
    }

    public func layout(rows: Int, columns: Int) {
        let width = max(1, columns - 2)
        if wrappedWidth != width {
            wrapped = TextWrapper.wrap(text, width: width)
            if omittedBytes > 0 {
                wrapped += ["", "… \(ByteCountText.format(omittedBytes)) more not shown"]
            }
            wrappedWidth = width
            cursor.setCount(wrapped.count)
        }
        cursor.setPageSize(rows)
        if atEnd { cursor.scroll(by: cursor.count) }
    }

    public func render(into buffer: inout ScreenBuffer, rows: Range<Int>) {
        let width = max(1, buffer.size.columns - 2)
        for (offset, index) in cursor.visible.enumerated() {
            buffer.put(wrapped[index], row: rows.lowerBound + offset, column: 1, width: width)
        }
    }
}
