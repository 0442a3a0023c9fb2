import EntityCache
import ODataCore

/// The rows a list screen shows, as read from the cache (issue 33's split of ``EntityListController``): a window of a
/// stored list; or every row (a relation, or a list small and whole enough to sort and filter here) with the
/// positions a filter keeps; or, while the service is asked for a filter, the cached rows that match it. A value:
/// the controller reads into it and observes the cache; what is shown at a position, how many there are and where a
/// row is are answered here.
struct ListRows {
    /// Windowed rows of a stored list.
    var window: ListWindow?
    /// Every row, for relations and for lists small and complete enough to filter locally.
    var all: [ListRow]?
    /// Indices into ``all`` that match the local filter.
    var matches: [Int]?
    /// While the service is asked for a filter, the rows already cached that match it (``shownProvisional``).
    var provisional: [ListRow]?

    /// The cached matches shown while the service's answer to a filter is on its way; nil once it is here.
    var shownProvisional: [ListRow]? { window?.state == nil ? provisional : nil }

    /// Number of rows shown now (filtered when a filter applies).
    var count: Int {
        if let matches { return matches.count }
        if let all { return all.count }
        if let provisional = shownProvisional { return provisional.count }
        return window?.state?.displayCount ?? 0
    }

    /// The row at a display position: nil past the end, a row without an entity where a window has none yet.
    func row(at position: Int) -> ListRow? {
        if let matches, let all { return position < matches.count ? all[matches[position]] : nil }
        if let all { return position < all.count ? all[position] : nil }
        if let provisional = shownProvisional { return position < provisional.count ? provisional[position] : nil }
        guard let window, window.range.contains(position) else { return ListRow(position: position) }
        let index = position - window.range.lowerBound
        guard index < window.rows.count else { return ListRow(position: position) }
        return ListRow(position: position, shown: window.rows[index].entity)
    }

    /// Whether the rows have arrived at all: a stored list's state, or (`related`) the relation's rows.
    func isKnown(related: Bool) -> Bool {
        related ? all != nil : window?.state != nil || all != nil || shownProvisional != nil
    }

    /// Where the row whose anchor is `key` is now, among the rows read.
    func position(of key: EntityKey) -> Int? {
        let matchesKey: (ListRow) -> Bool = { $0.anchor?.key == key }
        if let matches, let all { return matches.firstIndex { matchesKey(all[$0]) } }
        if let all { return all.firstIndex(where: matchesKey) }
        if let provisional = shownProvisional { return provisional.firstIndex(where: matchesKey) }
        guard let window, let index = window.rows.firstIndex(where: { $0.entity?.key == key }) else { return nil }
        return window.range.lowerBound + index
    }

    /// The anchors of the rows read that the service has not given a key yet (made here, on their way).
    var temporaryAnchors: [EntityKey] {
        let keys = all?.compactMap { $0.anchor?.key } ?? window?.rows.compactMap { $0.entity?.key } ?? []
        return keys.filter(\.isTemporary)
    }

    /// Whether the window holds every position of `visible` (a list read by window; else there is nothing to read).
    func windowCovers(_ visible: Range<Int>) -> Bool {
        guard let window else { return false }
        return visible.lowerBound >= window.range.lowerBound && visible.upperBound <= window.range.upperBound
    }
}
