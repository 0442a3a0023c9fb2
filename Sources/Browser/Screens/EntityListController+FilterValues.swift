import EntityCache
import ODataCore
import ScreenSeam
import Terminal

/// Value help in `:filter` (issue 33): once a clause names a field and an operator, Tab completes the value from what
/// the field can be — an enum's members, true or false, or the values of its `Common.ValueList` as cached — and F4
/// opens that value list (or the one another service lists, `Common.ValueListReferences`) to pick one from, as F4
/// does in a form; the palette comes back with the value in place.
extension EntityListController {
    /// The property `field` names (by name or label) among the shown set's.
    func filterProperty(_ field: String) -> Property? {
        guard let set = shownSet, let type = environment.model.entityType(ofSet: set) else { return nil }
        return TypedFilter.field(named: field, in: environment.model.properties(of: type))
    }

    /// The value list of `property` that gives its values (an `Out` or `InOut` parameter for it), in this service:
    /// the list and the property of its set that holds the value.
    func filterValueList(of property: Property) -> (list: ValueList, from: String)? {
        guard let list = property.valueList, environment.model.entitySet(named: list.collectionPath) != nil,
            let from = list.outputs.first(where: { $0.local == property.name })?.from
        else { return nil }
        return (list, from)
    }

    /// What `field` can be, for Tab: its enum's members, true and false, or its value list's values as cached (the
    /// first 2,000 rows of that list; none when it is not cached: F4 reads it).
    func filterValues(forField field: String) -> [String] {
        guard let property = filterProperty(field) else { return [] }
        if let enumeration = FieldInput(property).enumeration { return enumeration.members.map(\.name) }
        if property.type.primitive == .boolean { return ["true", "false"] }
        guard let (list, from) = filterValueList(of: property) else { return [] }
        let key = ListRequest(entitySet: list.collectionPath).key
        guard let state = try? environment.cache.listState(key),
            let window = try? environment.cache.listWindow(key, range: 0..<min(state.fetchedCount, 2000))
        else { return [] }
        var seen: Set<String> = []
        return window.rows.compactMap { $0.entity?[from] }.map { FieldInput.text(of: $0) }.filter {
            !$0.isEmpty && seen.insert($0).inserted
        }
    }

    /// F4 in `:filter` with a value being typed in `line`: the field's value list to pick from (`reopen` gets the
    /// line with the chosen value, or the line as it was and why not), or the sentence saying why there is none.
    /// A field whose values another service lists (`Common.ValueListReferences`) may need that service opened
    /// first: the sentence then says it is being read, and `whenRead` gets the list to pick from, or why there is
    /// none, once it has been.
    func filterValueHelp(
        line: String, reopen: @escaping @MainActor (String, String?) -> Void,
        whenRead: @escaping @MainActor (Result<any ScreenController, ValueHelpRefusal>) -> Void = { _ in }
    ) -> Result<any ScreenController, ValueHelpRefusal> {
        let filterText = line.drop { $0 != " " }.dropFirst()
        guard line.lowercased().hasPrefix("filter "), let spot = TypedFilter.valueBeingTyped(String(filterText)) else {
            return .failure(.init(sentence: "F4 lists a field's values after :filter FIELD = "))
        }
        let shownField = TextSanitizer.sanitize(String(spot.field.prefix(60)))
        guard let property = filterProperty(spot.field) else {
            return .failure(.init(sentence: "No field “\(shownField)” here to list values of."))
        }
        let before = "filter " + spot.before
        /// The list of `list`'s values in `service`, its `from` property written into the line.
        func picker(
            _ list: ValueList, in service: BrowserEnvironment
        ) -> Result<
            any ScreenController, ValueHelpRefusal
        > {
            guard let from = list.outputs.first(where: { $0.local == property.name })?.from else {
                return .failure(.init(sentence: "\(shownField) has no value help: the service lists no values for it."))
            }
            let collection = list.collectionPath
            let title = TextSanitizer.sanitize(
                String((list.label ?? service.setProfile(collection).title ?? collection).prefix(60)))
            let picker = EntityListController(
                environment: service, source: .list(ListRequest(entitySet: collection)), breadcrumb: title,
                kindTitle: title)
            picker.picking = Picking(
                title: "Enter takes it for :filter \(shownField)",
                take: { entity in
                    let whole = (try? service.cache.fullEntity(entity.key)) ?? nil
                    guard let value = whole?[from] ?? entity[from] else {
                        reopen(line, "The chosen row has no \(from) in the cache yet: type the value.")
                        return
                    }
                    let chosen = before + TypedFilter.typedValue(FieldInput.text(of: value))
                    guard CommandPalette.fits(chosen) else {
                        reopen(line, "The chosen value cannot be typed on this line (too long, or not printable).")
                        return
                    }
                    reopen(chosen, nil)
                })
            return .success(picker)
        }
        if let (list, _) = filterValueList(of: property) { return picker(list, in: environment) }
        guard !property.valueListReferences.isEmpty, let set = shownSet,
            let type = environment.model.entityType(ofSet: set)
        else {
            return .failure(.init(sentence: "\(shownField) has no value help: the service lists no values for it."))
        }
        // (another service lists them: its mapping may be aimed at the property where a base type declares it)
        let targets = environment.model.qualifiedNames(of: type).map { $0 + "/" + property.name }
        let lookup = environment.lookUpValueHelp(
            references: property.valueListReferences, targets: targets, label: shownField
        ) { found in
            switch found {
            case .success(let (service, list)): whenRead(picker(list, in: service))
            case .failure(let why): whenRead(.failure(why))
            }
        }
        switch lookup {
        case .ready(let service, let list): return picker(list, in: service)
        case .refused(let sentence): return .failure(.init(sentence: sentence))
        case .opening: return .failure(.init(sentence: "Reading the value help of \(shownField)…"))
        }
    }
}
