import Terminal

/// A list screen with a `/` filter: the keys of the filter are the same on every such screen.
@MainActor
protocol FilterableScreen: AnyObject {
    var filter: ListFilter { get set }
    var environment: BrowserEnvironment { get }
    /// Applies a new filter text (`""` clears it).
    func setFilter(_ text: String)
}

extension FilterableScreen {
    /// The filter's keys: every key while a filter is typed; `/` starts typing one, Esc clears an active one.
    /// Nil for a key that is not the filter's.
    func handleFilterKey(_ key: Key) -> ScreenAction? {
        if filter.isEditing {
            if let text = filter.type(key) { setFilter(text) }
            environment.setNeedsDisplay()
            return .handled
        }
        switch key {
        case .char("/"):
            filter.isEditing = true
            environment.setNeedsDisplay()
            return .handled
        case .escape where filter.isActive:
            setFilter("")
            return .handled
        default:
            return nil
        }
    }
}
