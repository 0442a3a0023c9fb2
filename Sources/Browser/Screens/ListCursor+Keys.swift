import Terminal

extension ListCursor {
    /// Applies the movement keys every list-like screen shares (arrows and j/k, pages, ends,
    /// mouse wheel). Returns false for any other key.
    mutating func apply(_ key: Key) -> Bool {
        switch key {
        case .up, .char("k"): move(by: -1)
        case .down, .char("j"): move(by: 1)
        case .pageUp, .ctrl("b"): pageUp()
        case .pageDown, .ctrl("f"), .char(" "): pageDown()
        case .home, .char("g"): moveToStart()
        case .end, .char("G"): moveToEnd()
        case .mouseWheelUp: scroll(by: -3)
        case .mouseWheelDown: scroll(by: 3)
        default: return false
        }
        return true
    }
}
