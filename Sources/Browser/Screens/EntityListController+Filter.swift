import EntityCache
import ODataCore
import ScreenSeam

/// The filter of a list: `/` and `:filter` applied, here on the rows held or by the service.
extension EntityListController {
    /// Applies a new filter text: locally when every row is cached, else as `$filter` on the server.
    func setFilter(_ text: String) {
        filter.text = text
        filter.condition = nil
        filterChanged()
    }

    /// Shows the rows the filter as it now stands lets through, from the top.
    func filterChanged() {
        cursor.moveToStart()
        if case .list = source {
            arrangeList(reread: false)
        } else {
            applyFilterLocally()
            cursor.setCount(rowCount)
        }
        environment.setNeedsDisplay()
    }

    /// Shows a root list as its filter and sort ask: the stored window as the service ordered it; every row held
    /// here, filtered and sorted locally, when the list is complete (`reread` reads them again); or the service
    /// asked with `$filter` and `$orderby` (a list of its own in the cache).
    func arrangeList(reread: Bool) {
        guard case .list(let base) = source else { return }
        rowModel.provisional = nil
        searchReach.cachedRowsOnly = false
        searchReach.unsearchedFields = []
        searchReach.byService = false
        guard filter.isActive || columnState.sort != nil else {
            rowModel.all = nil
            rowModel.matches = nil
            activeRequest = base
            loadWindow()
            return
        }
        let state = try? environment.cache.listState(base.key)
        let search = serviceSearchFields
        // A service that filters by none of the fields searched: the rows here answer, and the notice says so.
        let searching = filter.isActive && filter.condition == nil
        let serviceSearches = searching && servicesSearch
        searchReach.refused = searching && !serviceSearches && search.isEmpty && !setProfileSearch.isEmpty
        searchReach.cachedRowsOnly =
            searching && (filter.text.count < Self.serverFilterMinimum || searchReach.refused)
            && !(state?.isComplete ?? false)
        // Rows held for a short filter of a list not wholly cached give way to the service's answer.
        if reread || (rowModel.all != nil && !(state?.isComplete ?? false) && !searchReach.cachedRowsOnly) {
            rowModel.all = nil
            rowModel.matches = nil
        }
        if rowModel.all == nil, let state, state.isComplete, state.displayCount <= 5000 {
            holdWholeList(base.key, count: state.displayCount)
        } else if rowModel.all == nil, searchReach.cachedRowsOnly, let state {
            // One or two letters match most of a long list, and the next keystroke supersedes the question:
            // the rows already here answer at once; the service is asked from three letters on.
            holdWholeList(base.key, count: min(state.displayCount, 5000))
        }
        if rowModel.all != nil {
            applyFilterLocally()
            return
        }
        var request = base
        if let order = userOrder {
            request.options.orderBy = order.items.map { QueryOptions.OrderItem($0.property, descending: $0.descending) }
        }
        if serviceSearches {
            searchReach.byService = true
            searchReach.askedAt = environment.now()
            request.options.search = filter.text
        } else if searching {
            searchReach.unsearchedFields = setProfileSearch.filter { !search.contains($0) }
        }
        if !searchReach.byService, let expression = filter.serverExpression(fields: search) {
            request.options.filter = expression.and(base.options.filter, dialect: environment.model.dialect)
        }
        rowModel.matches = nil
        activeRequest = request
        rowModel.provisional = state.flatMap { cachedMatches(of: base, state: $0) }
        loadWindow()
    }

    /// The rows of `base` already cached (its first few thousand positions) that match the filter, in the list's
    /// order: shown at once while the service answers the filter, then replaced by its answer.
    func cachedMatches(of base: ListRequest, state: ListState) -> [ListRow]? {
        guard filter.isActive, state.fetchedCount > 0 else { return nil }
        let range = 0..<min(state.displayCount, 2000)
        guard let window = try? environment.cache.listWindow(base.key, range: range) else { return nil }
        let columns = self.columns
        let rows = window.rows.compactMap { row in
            row.entity.map { ListRow(position: row.position, shown: $0, link: nil) }
        }.filter { filter.matches($0.shown, text: rowText($0, columns: columns)) }
        return rows.enumerated().map { ListRow(position: $0.offset, shown: $0.element.shown, link: nil) }
    }

    /// Whether `/` asks the service's own search (`$search`) of the set shown: it says it searches, and did not fail
    /// to this session.
    var servicesSearch: Bool {
        guard let set = shownSet else { return false }
        return environment.model.searches(set) && environment.searchFailed[set] == nil
    }

    /// A search the service was asked (`$search`) that failed since it was asked (not a failure an earlier session
    /// left on the same list): the set's fields are filtered instead from now on, and the status line says why until
    /// the next key. Called before each frame; once per set.
    func fallBackFromFailedSearch() {
        guard searchReach.byService, rowModel.all == nil, let request = activeRequest, request.options.search != nil,
            let set = shownSet, environment.searchFailed[set] == nil, let askedAt = searchReach.askedAt,
            let state = (try? environment.cache.listState(request.key)) ?? nil, let error = state.lastError,
            let failedAt = state.lastErrorAt, failedAt >= askedAt
        else { return }
        environment.searchFailed[set] = error
        notice = "The service's search failed (\(error)); filtering by the fields instead."
        arrangeList(reread: false)
    }

    /// Letters a filter needs before a list not wholly cached asks the service (below, the cached rows answer).
    static let serverFilterMinimum = 3

    /// Reads every row of a complete stored list to filter here, and keeps them current: a row changed, added
    /// or deleted while the filter is on shows as it does without one.
    func holdWholeList(_ key: ListKey, count: Int) {
        // Room for rows added while the filter is on.
        let range = 0..<(count + 1000)
        let order = userOrder
        let rows: (ListWindow?) -> [ListRow]? = { window in
            let rows = window?.rows.map { ListRow(position: $0.position, shown: $0.entity, link: nil) }
            return order.map { order in rows.map(order.sorted) } ?? rows
        }
        rowModel.window = try? environment.cache.listWindow(key, range: range)
        rowModel.all = rows(rowModel.window)
        observation?.cancel()
        observation = environment.cache.observeListWindow(key, range: range) { [weak self] window in
            guard let self, self.rowModel.all != nil else { return }
            let selected = self.selectedKey
            self.rowModel.window = window
            self.rowModel.all = rows(window)
            self.draftHolders = [:]
            self.applyFilterLocally()
            self.keepSelection(on: selected)
            self.environment.setNeedsDisplay()
        }
    }

    func applyFilterLocally() {
        guard let allRows = rowModel.all, filter.isActive else {
            rowModel.matches = nil
            cursor.setCount(rowCount)
            return
        }
        let columns = self.columns
        rowModel.matches = allRows.indices.filter {
            filter.matches(allRows[$0].shown, text: rowText(allRows[$0], columns: columns))
        }
        cursor.setCount(rowCount)
    }
}
