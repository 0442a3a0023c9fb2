import EntityCache
import ScreenSeam
import Terminal

/// One screen's controller: a plain object that reads the cache and draws its content.
///
/// Controllers hold no other controller. The ``NavigationStack`` owns them, shows
/// only the top one, and is the only caller of the four lifecycle methods. A
/// controller starts its cache observation when it appears and cancels it when it
/// disappears.
///
/// Every frame is three steps, in order: ``layout(rows:columns:)`` (the size of the content area, known before
/// anything is drawn), ``update()`` (read what the frame shows, tell the fetcher what is visible) and
/// ``render(into:rows:)``, which only draws.
@MainActor
public protocol ScreenController: AnyObject {
    /// Identifies this screen to the background fetcher.
    var screenID: ScreenID { get }
    /// This screen's part of the breadcrumb (`Samson, Bob`).
    var breadcrumb: String { get }
    /// What kind of screen this is, shown at the right of the breadcrumb (`Cars`).
    var kindTitle: String { get }
    /// A short summary for the status line: `12 of 200 · 3 s old`.
    var statusSummary: String { get }
    /// Whether keys go into text on this screen now (a filter being typed, a form): then no key is rebound.
    var takesText: Bool { get }

    func willAppear()
    func didAppear()
    func willDisappear()
    func didDisappear()

    /// Handles a key; ``ScreenAction/ignored`` lets the stack apply its global keys.
    func handle(_ key: Key) -> ScreenAction
    /// A click at `row` of the screen's area (0 is its first row) and `column`; `double` for the second click on
    /// the same row in quick succession.
    func click(row: Int, column: Int, double: Bool) -> ScreenAction
    /// The content area the next frame gives this screen: `rows` lines of `columns` cells (page sizes, wrapping).
    func layout(rows: Int, columns: Int)
    /// Brings what the next frame shows up to date: reads the cache where the visible rows left what was read,
    /// and tells the fetcher what is on screen. Called before every frame; cheap when nothing changed.
    func update()
    /// Draws the content area: `rows` of `buffer` (the chrome owns the others). Draws only: it reads nothing,
    /// announces nothing and changes no state that a key, an update or the fetcher reads. (A screen may keep a memo
    /// of what it drew, to copy rows that did not change into the next frame, as the list does: only `render`
    /// reads it, and drawing without it draws the same.)
    func render(into buffer: inout ScreenBuffer, rows: Range<Int>)
    /// `r`: ask for fresh data.
    func refresh()
}

extension ScreenController {
    public func willAppear() {}
    public func didAppear() {}
    public func willDisappear() {}
    public func didDisappear() {}
    public func layout(rows: Int, columns: Int) {}
    public func update() {}
    public func refresh() {}
    public var takesText: Bool { false }
    public func click(row: Int, column: Int, double: Bool) -> ScreenAction { .ignored }
}

/// What a key press asks of the navigation stack.
@MainActor
public enum ScreenAction {
    /// The screen used the key (and will redraw).
    case handled
    /// The screen did not use the key.
    case ignored
    case push(any ScreenController)
    /// Several screens at once, the last on top (`c` on a car: its maintenance, and the chart over it).
    case pushAll([any ScreenController])
    case pop
    /// This screen gives way to another (a form for an operation's parameters, to the operation's answer).
    case replace(any ScreenController)
}
