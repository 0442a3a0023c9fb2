/// Cursor and scroll position of a list: pure arithmetic, no drawing.
///
/// The cursor stays within `0..<count` (or at 0 for an empty list); the first
/// visible row moves only as much as needed to keep the cursor on screen.
public struct ListCursor: Sendable, Hashable {
    public private(set) var selected: Int = 0
    public private(set) var top: Int = 0
    public private(set) var count: Int = 0
    public private(set) var pageSize: Int = 1

    public init() {}

    /// The rows on screen.
    public var visible: Range<Int> { top..<min(count, top + pageSize) }

    /// Updates the number of rows (the list grew, or a filter changed it).
    public mutating func setCount(_ newCount: Int) {
        count = max(0, newCount)
        clamp()
    }

    /// Updates how many rows fit on screen (after a resize).
    public mutating func setPageSize(_ rows: Int) {
        pageSize = max(1, rows)
        clamp()
    }

    public mutating func move(by delta: Int) {
        selected += delta
        clamp()
    }

    public mutating func pageDown() { move(by: pageSize) }
    public mutating func pageUp() { move(by: -pageSize) }

    public mutating func moveToStart() {
        selected = 0
        clamp()
    }

    public mutating func moveToEnd() {
        selected = count - 1
        clamp()
    }

    /// Scrolls the view (mouse wheel) by `delta` rows, dragging the cursor along when it would leave the screen.
    public mutating func scroll(by delta: Int) {
        top = max(0, min(top + delta, max(0, count - pageSize)))
        if selected < top { selected = top }
        if selected >= top + pageSize { selected = top + pageSize - 1 }
        clamp()
    }

    private mutating func clamp() {
        selected = count == 0 ? 0 : min(max(selected, 0), count - 1)
        if selected < top { top = selected }
        if selected >= top + pageSize { top = selected - pageSize + 1 }
        top = max(0, min(top, max(0, count - pageSize)))
    }
}
