import EntityCache
import ODataCore
import ScreenSeam
import Terminal

/// Keys, sorting and drilling in.
extension EntityListController {
    public func handle(_ key: Key) -> ScreenAction {
        notice = nil
        if let pending = confirmingDelete {
            confirmingDelete = nil
            if key == .char("y") || key == .char("Y") { environment.writes?.delete(pending.deletion) }
            environment.setNeedsDisplay()
            return .handled
        }
        if exporting != nil, key == .escape, !filter.isEditing {
            cancelExport()
            return .handled
        }
        if let action = handleFilterKey(key) { return action }
        if let picking, key == .enter {
            guard let shown = row(at: cursor.selected)?.shown else { return .handled }
            if picking.alreadyLinked.contains(shown.key) {
                notice = "Nothing was linked: " + picking.alreadyLinkedNote
                environment.setNeedsDisplay()
                return .handled
            }
            picking.take(shown)
            return .pop
        }
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
        case .char("a"):
            return addForm().map(ScreenAction.push) ?? .handled
        case .char("L"):
            return linkCandidates().map(ScreenAction.push) ?? .handled
        case .char("!"):
            guard let set = shownSet else { return .handled }
            // (what acts on all of the set is offered on the set's own list, not on a relation's or a function's)
            var wholeSet = false
            if case .list(let request) = source, request.path.segments.count == 1,
                request.path.segments[0].name == set, request.path.segments[0].key == nil
            {
                wholeSet = true
            }
            return .push(
                OperationsController(
                    environment: environment, set: set, entity: row(at: cursor.selected)?.shown,
                    breadcrumb: "Operations", wholeSet: wholeSet))
        case .char("s"):
            cycleSort()
            return .handled
        case .char(">"), .char("<"):
            scrollColumns(by: key == .char(">") ? 1 : -1, width: columnState.laidOutWidth)
            return .handled
        case .char("-"):
            notice = hideColumn()
            environment.setNeedsDisplay()
            return .handled
        case .char("+"):
            notice = showColumns()
            environment.setNeedsDisplay()
            return .handled
        case .char("c"):
            if let chart = ChartController(environment: environment, list: self) { return .push(chart) }
            // On a car: the chart of what Enter opens (its maintenance), with that list under it for Esc.
            if let next = drill() as? EntityListController,
                let chart = ChartController(environment: environment, list: next)
            {
                return .pushAll([next, chart])
            }
            notice = "Nothing to chart here: this list's entities have no date and number."
            environment.setNeedsDisplay()
            return .handled
        case .char("y"), .char("Y"):
            if let shown = row(at: cursor.selected)?.shown {
                notice = environment.yank(shown, asJSON: key == .char("Y"))
            }
            environment.setNeedsDisplay()
            return .handled
        default:
            return .ignored
        }
    }

    /// A click on a row selects it; a double click opens it (as Enter). The first line is the header.
    public func click(row: Int, column: Int, double: Bool) -> ScreenAction {
        let position = cursor.top + row - 1
        guard row >= 1, position < rowCount, confirmingDelete == nil, !filter.isEditing else { return .ignored }
        select(position: position)
        // A double click is Enter: open the row, or pick it in a list of candidates.
        return double ? handle(.enter) : .handled
    }

    /// Puts the cursor on the row at `position` (a chart moving its highlighted record).
    func select(position: Int) {
        cursor.move(by: position - cursor.selected)
        cursorMoved()
    }

    func cursorMoved() {
        scheduleRest()
        environment.setNeedsDisplay()
    }

    /// `s`: the next sort: each column ascending, then descending, then the profile's order again. Columns the
    /// service does not sort by are passed over (the notice says which).
    func cycleSort() {
        let count = columns.count
        var next: (column: Int, descending: Bool)?
        switch columnState.sort {
        case nil: next = (0, false)
        case (let column, false)?: next = (column, true)
        case (let column, true)? where column + 1 < count: next = (column + 1, false)
        default: next = nil
        }
        var passed: [String] = []
        while let candidate = next {
            if !candidate.descending, let property = unsortableProperty(ofColumn: candidate.column) {
                passed.append(property)
                next = candidate.column + 1 < count ? (candidate.column + 1, false) : nil
            } else if oneWayProperty(ofColumn: candidate.column, descending: candidate.descending) != nil {
                // Sorted one way only: that way, once (descending only) or not down (ascending only).
                next =
                    !candidate.descending
                    ? (candidate.column, true)
                    : candidate.column + 1 < count ? (candidate.column + 1, false) : nil
            } else {
                break
            }
        }
        columnState.sort = next
        if !passed.isEmpty { notice = "The service does not sort \(kindTitle) by \(passed.joined(separator: ", "))." }
        cursor.moveToStart()
        switch source {
        case .list: arrangeList(reread: true)
        default: reload()
        }
        environment.setNeedsDisplay()
    }

    /// `:sort COLUMN [desc]`: that column (by its title, or a property it shows), in that direction; nil when it
    /// sorted, else why not.
    func sort(byColumn name: String, descending: Bool) -> String? {
        let lowered = name.lowercased()
        let shown = columns
        let index =
            shown.firstIndex { $0.title.lowercased() == lowered }
            ?? shown.firstIndex { ValueFormatter.fields(of: $0.value).contains { $0.lowercased() == lowered } }
        guard let index else {
            return "No column “\(name)” here: " + shown.map(\.title).joined(separator: ", ") + "."
        }
        if let property = unsortableProperty(ofColumn: index) {
            return "The service does not sort \(kindTitle) by \(property)."
        }
        if let property = oneWayProperty(ofColumn: index, descending: descending) {
            return "The service sorts \(kindTitle) by \(property) \(descending ? "ascending" : "descending") only."
        }
        columnState.sort = (index, descending)
        cursor.moveToStart()
        switch source {
        case .list: arrangeList(reread: true)
        default: reload()
        }
        environment.setNeedsDisplay()
        return nil
    }

    /// The order the user chose: the fields of the sorted column's template, in its direction.
    var userOrder: ProfileOrder? {
        guard let sort = columnState.sort, sort.column < columns.count else { return nil }
        let fields = ValueFormatter.fields(of: columns[sort.column].value)
        guard !fields.isEmpty else { return nil }
        return ProfileOrder(fields.map { $0 + (sort.descending ? " desc" : "") })
    }

    /// What Enter opens for the selected row: the profile's drill-down (the link entity's
    /// first, for rows reached through one), else the entity's detail screen.
    func drill() -> (any ScreenController)? {
        guard let row = row(at: cursor.selected), let shown = row.shown else { return nil }
        let label = environment.label(of: shown)
        if let (parent, drill) = drillTarget(of: row) {
            return EntityListController(
                environment: environment, source: .related(parent: parent.key, path: drill.path), breadcrumb: label,
                kindTitle: drill.title ?? drill.path.last ?? "", crumbEntity: shown.key
            )
        }
        return detail()
    }

    /// The profile's drill-down from `row`, and the entity it starts from (the link entity's first).
    func drillTarget(of row: ListRow) -> (CachedEntity, DisplayProfile.Drill)? {
        for candidate in [row.link, row.shown].compactMap({ $0 }) {
            if let drill = environment.setProfile(candidate.entitySet).drill { return (candidate, drill) }
        }
        return nil
    }

    /// The row the cursor would land on in the list Enter opens from `row` (its first, in the order that list
    /// shows), when the cache holds that list; its anchor (the link entity for rows reached through one).
    func landing(from row: ListRow) -> EntityKey? {
        guard row.shown != nil, let (parent, drill) = drillTarget(of: row) else { return nil }
        let set = environment.targetSet(from: parent.entitySet, path: drill.path) ?? ""
        let orderBy = environment.setProfile(set).orderBy ?? []
        // The count is taken before reading: a write that lands during the read is seen at the next rest.
        let changeCount = environment.cache.changeCount
        if told.landings.changeCount != changeCount || told.landings.byDrill.count >= Self.landingsLimit {
            told.landings = (changeCount, [:])
        }
        let drilled = LandingKey(parent: parent.key, path: drill.path, orderBy: orderBy)
        if let known = told.landings.byDrill[drilled] { return known }
        let landing = Self.readRelated(environment.cache, parent: parent.key, path: drill.path).flatMap {
            ProfileOrder(orderBy).sorted($0.rows).first?.anchor?.key
        }
        told.landings.byDrill[drilled] = landing
        return landing
    }

    /// Landing rows remembered at most between two writes to the cache.
    static let landingsLimit = 1_024

    /// `x`: asks before removing the selected row, naming it. In a list reached through a link entity (a person's
    /// cars, through `PersonCar`) that removes the link, never the entity behind it: the car stays, with its
    /// history, for its other owners. Elsewhere it deletes the entity (``askToDeleteEntity()``). Nothing when this
    /// session does not write; a sentence when the service does not let it be done.
    func askToDelete() {
        guard environment.writes != nil, let row = row(at: cursor.selected), let shown = row.shown else { return }
        if case .related(let parent, let path) = source, path.count == 1,
            environment.model.isManyToMany(path[0], fromSet: parent.entitySet)
        {
            // Many to many with no link entity between: the link goes ($links, $ref), both entities stay.
            let deletion = EntityDeletion(key: shown.key, shownIn: content, removesLinkOnly: true)
            // The key first: a narrow terminal cuts the end of the line.
            let question =
                "y removes the link: “\(parentName)” no longer has “\(environment.label(of: shown))” among its "
                + "\(kindTitle): both stay. Any other key keeps it"
            confirmingDelete = (deletion, question)
            environment.setNeedsDisplay()
            return
        }
        guard case .related(_, let path) = source, path.count == 2, let link = row.link else {
            return askToDeleteEntity()
        }
        let name = environment.label(of: shown)
        if environment.model.entitySet(named: link.entitySet)?.isDeletable == false {
            notice =
                "The service does not let \(link.entitySet) be deleted, so “\(name)” cannot be taken out of "
                + "\(breadcrumb)’s \(kindTitle) here."
            environment.setNeedsDisplay()
            return
        }
        let deletion = EntityDeletion(key: link.key, shownIn: content, link: link.key)
        // The key first: a narrow terminal cuts the end of the line.
        let question =
            "y removes the link: “\(parentName)” no longer has “\(name)”; the \(shown.entitySet) and its history stay. "
            + "Any other key keeps it"
        confirmingDelete = (deletion, question)
        environment.setNeedsDisplay()
    }

    /// `:delete-entity` (and `x` outside lists reached through a link entity): asks before deleting the selected
    /// row's entity itself, naming it and what is known to hang from it.
    func askToDeleteEntity() {
        guard environment.writes != nil, let row = row(at: cursor.selected), let shown = row.shown else { return }
        let name = environment.label(of: shown)
        if environment.model.entitySet(named: shown.entitySet)?.isDeletable == false {
            notice = "The service does not let \(shown.entitySet) be deleted, so “\(name)” stays."
            environment.setNeedsDisplay()
            return
        }
        let deletion = EntityDeletion(key: shown.key, shownIn: content, link: row.link?.key)
        var question = "Delete “\(name)”"
        if row.link != nil { question += " itself, for every \(shownParentSet ?? "parent") it belongs to" }
        let dependents = dependentsKnown(of: shown)
        if !dependents.isEmpty { question += ", with its " + dependents.joined(separator: " and ") }
        confirmingDelete = (deletion, question + "? y deletes it, any other key keeps it")
        environment.setNeedsDisplay()
    }

    /// The name of this list's parent (a person's cars: “Samson, Bob”), read from the cache; else the crumb.
    var parentName: String {
        guard case .related(let parent, _) = source, let entity = (try? environment.cache.entity(parent)) ?? nil
        else { return breadcrumb }
        return environment.label(of: entity)
    }

    /// The entity set of this list's parent (a person's cars: `Person`), nil for a root list.
    var shownParentSet: String? {
        if case .related(let parent, _) = source { return parent.entitySet }
        return nil
    }

    /// What the cache knows hangs from `entity` (its to-many navigations' children: "2 PersonCar"), read when the
    /// question is asked; a relation never fetched is not named.
    func dependentsKnown(of entity: CachedEntity) -> [String] {
        let model = environment.model
        guard let set = model.entitySet(named: entity.entitySet), let type = model.entityTypes[set.entityType] else {
            return []
        }
        return model.navigationProperties(of: type).compactMap { navigation in
            guard let related = try? environment.cache.related(entity.key, navigation: navigation.name),
                let count = related.elements?.count, count > 0,
                model.resolveNavigation(navigation.name, fromSet: set.name)?.isCollection == true
            else { return nil }
            return "\(count) \(navigation.name)"
        }
    }

    /// The form for a new entity of the set this list shows, added to this list (or relation: through a new link
    /// entity for rows reached through one). Nil when this session does not write or the service does not let
    /// such entities be made here.
    func addForm() -> (any ScreenController)? {
        guard environment.writes != nil, let set = shownSet else { return nil }
        var addedTo: ScreenContent? = source
        if case .related(let parent, let path) = source {
            guard path.count <= 2 else {
                notice = "New entities cannot be added through \(path.count - 1) link entities here."
                return nil
            }
            if path.count == 2, let linkSet = environment.targetSet(from: parent.entitySet, path: [path[0]]),
                environment.model.entitySet(named: linkSet)?.isCreatable == false
            {
                notice = "The service does not let new \(linkSet) be made, so nothing can be added here."
                return nil
            }
            addedTo = .related(parent: parent, path: path)
        }
        let title = environment.setProfile(set).title ?? set
        guard environment.model.entitySet(named: set)?.isCreatable ?? true else {
            notice = "The service does not let new \(set) be made."
            return nil
        }
        let (environment, before) = (environment, Set(temporaryAnchors))
        let form = { [weak self] (type: EntityType?) -> (any ScreenController)? in
            guard
                let form = EditFormController(
                    environment: environment, creatingIn: set, addedTo: addedTo, breadcrumb: "in \(title)", of: type)
            else { return nil }
            // Once saved, the new row is the one the cursor goes to, wherever it shows (new rows show under a
            // temporary key until the service gives theirs).
            form.onCreate = { [weak self] in self?.awaitingNewRow = before }
            return form
        }
        // A set whose entities may be of derived types asks which one first (a list narrowed to one does not); where
        // only one type can be made (an abstract type's one derived type), that one's form opens.
        var type = castType
        if castType == nil, let setType = environment.model.entityType(ofSet: set) {
            let choices = TypeChoiceController.choices(of: setType, in: environment.model)
            if choices.count > 1 {
                return TypeChoiceController(
                    environment: environment, choices: choices, breadcrumb: "in \(title)", form: form)
            }
            guard let only = choices.first else {
                notice = "\(title) are of an abstract type the service derives none from: none can be made."
                return nil
            }
            type = only.derived
        }
        guard let made = form(type) else {
            notice = "The service does not let new \(set) be made."
            return nil
        }
        return made
    }

    /// The entities that could be linked here (a relation reached through link entities): Enter on one links it
    /// to this screen's parent through a new link entity.
    func linkCandidates() -> (any ScreenController)? {
        guard environment.writes != nil, case .related(let parent, let path) = source, path.count == 2,
            let set = shownSet
        else { return nil }
        if let linkSet = environment.targetSet(from: parent.entitySet, path: [path[0]]),
            environment.model.entitySet(named: linkSet)?.isCreatable == false
        {
            notice = "The service does not let new \(linkSet) be made, so nothing can be linked here."
            environment.setNeedsDisplay()
            return nil
        }
        let candidates = EntityListController(environment: environment, entitySet: set)
        // What is linked here already is marked, and not linked twice.
        let linked = Self.readRelated(environment.cache, parent: parent, path: path)?.rows.compactMap(\.shown?.key)
        let writes = environment.writes
        candidates.picking = Picking(
            title: "Enter links it to \(breadcrumb)",
            take: { entity in writes?.link(EntityLink(parent: parent, path: path, target: entity.key)) },
            alreadyLinked: Set(linked ?? []), alreadyLinkedNote: "already one of \(breadcrumb)’s \(kindTitle).")
        return candidates
    }

    /// The form that changes the selected row's entity, read whole from the cache. A row prefetched with only what
    /// this list shows opens with what is known; the rest is fetched, and its fields wait (read-only, named on the
    /// status line) until it arrives, offline too.
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

/// What a landing row depends on besides the cache: the drill-down it is the first row of, in the order that
/// list shows.
struct LandingKey: Hashable {
    var parent: EntityKey
    var path: [String]
    var orderBy: [String]
}
