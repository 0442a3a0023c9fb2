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
        // (a row's type is no property: the service sorts by none)
        let field = ValueFormatter.fields(of: columns[column].value).first {
            $0 == Self.typeField || !environment.model.sorts(set, by: $0)
        }
        return field == Self.typeField ? "type" : field
    }

    /// The property of `column` the service sorts only the other way (`AscendingOnlyProperties`,
    /// `DescendingOnlyProperties`), when it would be asked to sort it `descending` or not; nil when it can.
    func oneWayProperty(ofColumn column: Int, descending: Bool) -> String? {
        guard case .list(let base) = source, let set = shownSet, column < columns.count,
            (try? environment.cache.listState(base.key))?.isComplete != true
        else { return nil }
        return ValueFormatter.fields(of: columns[column].value).first {
            let directions = environment.model.sortDirections(set, by: $0)
            return descending ? !directions.descending : !directions.ascending
        }
    }

    /// Why this list is not asked for: the service reads its set only filtered (`RequiresFilter`,
    /// `RequiredProperties`, `sap:requires-filter`, `sap:required-in-filter`) and no filter that would do is on.
    /// The sentence shown in the rows' place; nil when the list may be read.
    var missingFilter: String? {
        guard case .list = source, let set = shownSet, let required = environment.model.requiredFilter(set) else {
            return nil
        }
        if required.isEmpty {
            // (the service's own search narrows the read too: a set that asks only for some filter takes it)
            if activeRequest?.options.filter != nil || activeRequest?.options.search != nil { return nil }
            return "The service lists \(kindTitle) only filtered: type :filter FIELD = VALUE (Tab completes the "
                + "fields)."
        }
        let named = filter.condition?.properties ?? []
        let missing = required.filter { !named.contains($0) }
        if missing.isEmpty { return nil }
        return "The service lists \(kindTitle) only filtered by \(required.joined(separator: ", ")): type :filter "
            + "\(missing[0]) = VALUE" + (missing.count > 1 ? " and …" : "") + "."
    }

    /// `:filter` with a typed condition (`status = P`, ``TypedFilter``): applied, or the sentence saying why not —
    /// a field the service does not filter by is refused before anything is asked. Nil when `text` is a plain
    /// search (the caller searches for it as `/` does).
    func setCondition(_ text: String) -> String?? {
        guard let set = shownSet, let type = environment.model.entityType(ofSet: set) else { return nil }
        let properties = environment.model.properties(of: type)
        switch TypedFilter.parse(text, properties: properties, offered: selectionFields) {
        case .notTyped:
            return nil
        case .refused(let sentence):
            return .some(sentence)
        case .condition(let condition):
            // (as `arrangeList` holds a list here: complete, and not too long to read whole)
            let wholeHere = {
                guard case .list(let base) = source else { return true }
                guard let state = try? environment.cache.listState(base.key) else { return false }
                return state.isComplete && state.displayCount <= 5000
            }()
            if !wholeHere, let refused = condition.properties.first(where: { !environment.model.filters(set, by: $0) })
            {
                return .some("The service does not filter \(kindTitle) by \(refused).")
            }
            // Rows read in part (through a parent's `$expand`) may not hold a field: they cannot answer for it.
            let named = condition.properties
            if wholeHere, let rows = rowModel.all,
                let lacking = named.first(where: { name in rows.contains { $0.shown.map { $0[name] == nil } ?? false } }
                )
            {
                return .some(
                    "Some of these rows were read without \(lacking): r reads them again whole, then filter.")
            }
            filter.text = text.trimmingCharacters(in: .whitespaces)
            filter.condition = condition
            filter.isEditing = false
            filterChanged()
            return .some(nil)
        }
    }

    /// What `:filter` completes: the service's selection fields, then the other properties it filters by.
    var filterFields: [String] {
        guard let set = shownSet, let type = environment.model.entityType(ofSet: set) else { return [] }
        let others = environment.model.properties(of: type).filter {
            $0.type.primitive != nil && environment.model.filters(set, by: $0.name)
        }.map(\.name)
        return selectionFields + others.filter { !selectionFields.contains($0) }
    }

    /// The fields the service offers to select by (`UI.SelectionFields`), in its order.
    var selectionFields: [String] {
        guard let set = shownSet else { return [] }
        return environment.model.selectionFields(ofSet: set)
    }
}
