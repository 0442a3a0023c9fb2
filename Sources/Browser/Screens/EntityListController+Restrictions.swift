import ODataCore

/// What the service says it does not filter or sort by (`Capabilities.FilterRestrictions`, `SortRestrictions`,
/// `sap:filterable`, `sap:sortable`; issue 33): never asked of it, said in a sentence instead.
extension EntityListController {
    /// The fields the `/` filter searches (the profile's, else the row label's).
    var setProfileSearch: [String] { environment.setProfile(shownSet ?? "").search ?? [] }

    /// Those the service takes a `$filter` on (`Capabilities.FilterRestrictions`, `sap:filterable`).
    var serviceSearchFields: [String] {
        guard let set = shownSet else { return setProfileSearch }
        return setProfileSearch.filter { environment.model.filters(set, by: $0) }
    }

    /// The property of `column` the service does not sort by, when the service would be asked to (a root list not
    /// wholly cached; one that is sorts here); nil when it can be sorted.
    func unsortableProperty(ofColumn column: Int) -> String? {
        guard case .list(let base) = source, let set = shownSet, column < columns.count,
            (try? environment.cache.listState(base.key))?.isComplete != true
        else { return nil }
        return ValueFormatter.fields(of: columns[column].value).first { !environment.model.sorts(set, by: $0) }
    }
}
