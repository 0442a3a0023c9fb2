import EntityCache
import ODataCore
import ScreenSeam
import Terminal

/// Value help (issue 33): a field whose property the service gives a `Common.ValueList` opens, on F4, the list of
/// its values — the value list's entity set, cached and browsed like any list, narrowed by the form's `In`
/// parameters — and Enter on one writes its `Out` and `InOut` values into the form's fields. Where the service says
/// the values are fixed (`Common.ValueListWithFixedValues`, `sap:value-list="fixed-values"`), a typed value that
/// is not among them is refused next to the field, once the whole list is in the cache (until then the service
/// decides).
extension EditFormController {
    /// The entity set the form edits or creates in (nil for an operation's parameters).
    var formSet: String? { onParameters == nil ? creating?.entitySet ?? key?.entitySet : nil }

    /// The property a field edits, as `$metadata` (and its annotations) declare it; an operation's parameter as one.
    func property(of field: Field) -> Property? {
        if onParameters != nil { return parameterProperties[field.input.name] }
        guard !field.isLinkField, let set = formSet, let type = environment.model.entityType(ofSet: set) else {
            return nil
        }
        return environment.model.properties(of: type).first { $0.name == field.input.name }
    }

    /// Whether the focused field has value help: a value list the service lists in a set of its own, or one another
    /// service lists (`Common.ValueListReferences`).
    var focusedHasValueHelp: Bool {
        guard let field = fields[safe: focus], field.isEditable, let property = property(of: field) else {
            return false
        }
        if let list = property.valueList { return environment.model.entitySet(named: list.collectionPath) != nil }
        return !property.valueListReferences.isEmpty && valueListTargets(of: field) != nil
            && environment.openService != nil
    }

    /// Where a value-help service may aim the mapping of `field`'s values: `NS.Type/property` for the form's type and
    /// its base types, or the operation's targets for a parameter; nil for a field that is neither.
    func valueListTargets(of field: Field) -> [String]? {
        if onParameters != nil { return parameterTargets[field.input.name] }
        guard !field.isLinkField, let set = formSet, let type = environment.model.entityType(ofSet: set) else {
            return nil
        }
        return environment.model.qualifiedNames(of: type).map { $0 + "/" + field.input.name }
    }

    /// F4: the values of the focused field, to pick one from.
    func valueHelp() -> ScreenAction {
        guard let field = fields[safe: focus] else { return .handled }
        guard formSet != nil || onParameters != nil, !field.isLinkField else {
            message = "Value help is for the fields of an entity's own form, not this one."
            return .handled
        }
        guard let property = property(of: field), property.valueList != nil || !property.valueListReferences.isEmpty
        else {
            message = "\(field.label) has no value help: the service lists no values for it."
            return .handled
        }
        guard field.isEditable else {
            message = "\(field.label) \(field.readOnly ?? "cannot be changed here")."
            return .handled
        }
        guard let list = property.valueList else { return referencedValueHelp(field, property) }
        return picker(of: list, for: field, in: environment)
    }

    /// The list of `list`'s values, read in `service` (this session's, or one opened for value help), narrowed by
    /// the form's `In` parameters; Enter on one writes its `Out` and `InOut` values into the form.
    func picker(of list: ValueList, for field: Field, in service: BrowserEnvironment) -> ScreenAction {
        let collection = list.collectionPath
        let model = service.model
        guard model.entitySet(named: collection) != nil else {
            message =
                "The values of \(field.label) are listed in \(TextSanitizer.sanitize(String(collection.prefix(60)))), "
                + "which \(service === environment ? "this" : "its value help") service does not have."
            return .handled
        }
        let listed = model.entityType(ofSet: collection).map { model.properties(of: $0) } ?? []
        // `In` parameters narrow the list by what the form holds now.
        var conditions: [QueryFilter] = []
        for (local, to) in list.inputs {
            guard let source = fields.first(where: { $0.input.name == local && !$0.isLinkField }), !source.text.isEmpty,
                case .success(let value) = source.input.parse(source.text), value != .null,
                let property = listed.first(where: { $0.name == to }), case .primitive(let type) = property.type
            else { continue }
            conditions.append(.compare(to, .eq, value, type: type))
        }
        let filter = conditions.isEmpty ? nil : QueryFilter.all(conditions).and(nil, dialect: model.dialect)
        let title = TextSanitizer.sanitize(
            String((list.label ?? service.setProfile(collection).title ?? collection).prefix(60)))
        let picker = EntityListController(
            environment: service, source: .list(ListRequest(entitySet: collection, filter: filter)),
            breadcrumb: title, kindTitle: title)
        let cache = service.cache
        picker.picking = Picking(
            title: "Enter takes it for \(field.label)",
            take: { [weak self] entity in self?.take(entity, from: list, cachedIn: cache) })
        return .push(picker)
    }

    /// Writes what the chosen `entity` of a value list gives into the form's fields (`Out` and `InOut`).
    func take(_ entity: CachedEntity, from list: ValueList, cachedIn cache: any CacheReader) {
        // (a row read with only what its list showed: the whole entity, when the cache has it)
        let whole = (try? cache.fullEntity(entity.key)) ?? nil
        var taken: [String] = []
        var missing: [String] = []
        for (local, from) in list.outputs {
            guard let index = fields.firstIndex(where: { $0.input.name == local && $0.isEditable && !$0.isLinkField })
            else { continue }
            guard let value = whole?[from] ?? entity[from] else {
                missing.append(fields[index].label)
                continue
            }
            fields[index].text = FieldInput.text(of: value)
            fields[index].caret = fields[index].text.count
            fields[index].error = nil
            taken.append(fields[index].label)
        }
        if !missing.isEmpty {
            message = "The chosen value has no " + missing.joined(separator: ", ") + " in the cache yet: type it."
        } else if !taken.isEmpty {
            message = "Taken from the value help: " + taken.joined(separator: ", ") + " · Enter saves"
        }
        environment.setNeedsDisplay()
    }

    /// Why the text of field `index` is refused when the service fixes its values and the whole list of them is in
    /// the cache: nil when it is one of them, or when that cannot be told here (the list not wholly cached, or a
    /// row of it without the value). Values are compared as the field writes them, so that a list whose property
    /// is typed otherwise than the form's still matches. The same text refused once goes the second time: the
    /// cached list may be older than the service's, which decides.
    func notAFixedValue(_ index: Int) -> String? {
        let field = fields[index]
        guard let property = property(of: field), property.hasFixedValues, let list = property.valueList,
            let from = list.outputs.first(where: { $0.local == field.input.name })?.from
        else { return nil }
        let key = ListRequest(entitySet: list.collectionPath).key
        guard let state = try? environment.cache.listState(key), state.isComplete, state.fetchedCount <= 5000,
            let window = try? environment.cache.listWindow(key, range: 0..<state.fetchedCount)
        else { return nil }
        let values = window.rows.compactMap { $0.entity?[from] }
        guard !values.isEmpty, values.count == window.rows.count else { return nil }
        let listed = Set(values.map { FieldInput.text(of: $0) })
        let attempt = field.input.name + "\u{0}" + field.text
        guard !listed.contains(field.text), !refusedFixedValues.contains(attempt) else { return nil }
        refusedFixedValues.insert(attempt)
        return "\(field.label): not one of the \(listed.count) values listed (F4 shows them)."
    }
}
