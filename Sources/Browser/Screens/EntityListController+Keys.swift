import EntityCache
import ODataCore
import ScreenSeam
import Terminal

/// Keys, filtering and drilling in.
extension EntityListController {
    public func handle(_ key: Key) -> ScreenAction {
        if let pending = confirmingDelete {
            confirmingDelete = nil
            if key == .char("y") || key == .char("Y") { environment.writes?.delete(pending.deletion) }
            environment.setNeedsDisplay()
            return .handled
        }
        if let action = handleFilterKey(key) { return action }
        if cursor.apply(key) {
            cursorMoved()
            return .handled
        }
        switch key {
        case .enter, .right, .char("l"):
            return drill().map(ScreenAction.push) ?? .handled
        case .char("d"):
            return detail().map(ScreenAction.push) ?? .handled
        case .char("e"):
            return editForm().map(ScreenAction.push) ?? .handled
        case .char("x"), .delete:
            askToDelete()
            return .handled
        default:
            return .ignored
        }
    }

    func cursorMoved() {
        scheduleRest()
        environment.setNeedsDisplay()
    }

    /// Applies a new filter text: locally when every row is cached, else as `$filter` on the server.
    func setFilter(_ text: String) {
        filter.text = text
        cursor.moveToStart()
        if case .list(let base) = source {
            let state = try? environment.cache.listState(base.key)
            if allRows == nil, let state, state.isComplete, state.displayCount <= 5000, !text.isEmpty {
                let window = try? environment.cache.listWindow(base.key, range: 0..<state.displayCount)
                allRows = window?.rows.map { ListRow(position: $0.position, shown: $0.entity, link: nil) }
            }
            if allRows == nil {
                var request = base
                let search = environment.setProfile(shownSet ?? "").search ?? []
                if let expression = filter.serverExpression(fields: search) {
                    request.options.filter = [base.options.filter, expression].compactMap { $0 }
                        .map { "(\($0))" }.joined(separator: " and ")
                }
                activeRequest = request
                loadWindow()
                environment.setNeedsDisplay()
                return
            }
        }
        applyFilterLocally()
        cursor.setCount(rowCount)
        environment.setNeedsDisplay()
    }

    func applyFilterLocally() {
        guard let allRows, filter.isActive else {
            matches = nil
            cursor.setCount(rowCount)
            return
        }
        matches = allRows.indices.filter { filter.matches(rowText(allRows[$0])) }
        cursor.setCount(rowCount)
    }

    /// What Enter opens for the selected row: the profile's drill-down (the link entity's
    /// first, for rows reached through one), else the entity's detail screen.
    func drill() -> (any ScreenController)? {
        guard let row = row(at: cursor.selected), let shown = row.shown else { return nil }
        let label = environment.label(of: shown)
        for candidate in [row.link, row.shown].compactMap({ $0 }) {
            guard let drill = environment.setProfile(candidate.entitySet).drill else { continue }
            return EntityListController(
                environment: environment, source: .related(parent: candidate.key, path: drill.path), breadcrumb: label,
                kindTitle: drill.title ?? drill.path.last ?? ""
            )
        }
        return detail()
    }

    /// Asks before deleting the selected row's entity, naming it (nothing when this session does not write).
    func askToDelete() {
        guard environment.writes != nil, let row = row(at: cursor.selected), let shown = row.shown else { return }
        if let set = environment.model.entitySet(named: shown.entitySet), !set.isDeletable { return }
        let deletion = EntityDeletion(key: shown.key, shownIn: content, link: row.link?.key)
        confirmingDelete = (deletion, environment.label(of: shown))
        environment.setNeedsDisplay()
    }

    /// The form that changes the selected row's entity, read whole from the cache.
    func editForm() -> (any ScreenController)? {
        guard let shown = row(at: cursor.selected)?.shown else { return nil }
        let entity = (try? environment.cache.fullEntity(shown.key)) ?? shown
        return EditFormController(environment: environment, entity: entity, breadcrumb: environment.label(of: shown))
    }

    /// The detail screen of the selected row's entity.
    func detail() -> (any ScreenController)? {
        guard let shown = row(at: cursor.selected)?.shown else { return nil }
        return EntityDetailController(
            environment: environment, key: shown.key, breadcrumb: environment.label(of: shown))
    }
}
