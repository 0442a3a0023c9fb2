import EntityCache
import ODataCore
import ScreenSeam
import Terminal

/// `!` on a list: what the service offers to do there (issue 36), in sections — on the selected row (operations
/// bound to its type), on the whole list (bound to a collection of them), and on the service (unbound) — the
/// annotations' order and labels first (`UI.DataFieldForAction` in `UI.LineItem`). One the service says is not
/// available (`Core.OperationAvailable`, `sap:applicable-path` false on the row) is shown dimmed with the reason.
///
/// Enter on a function that answers with a list of entities asks for its parameters in a form (typed and checked
/// as an edit's fields are) and opens the answer as a list screen, cached under the call. Enter on an action on the
/// row asks for its parameters, then asks before it queues it in the outbox (sent once, after the writes to the row
/// made before). An action on the list or on the service goes the same way, queued under a call of its own
/// (``ODataCore/EntityKey/call(on:)``). A function that answers one thing (a value, or one entity), on the service or
/// on the row, asks for its parameters and opens its answer as a screen of its own (``CallResultController``), cached
/// under the call. A function on a list that answers anything else is listed but not yet invoked; Enter says so.
@MainActor
final class OperationsController: ScreenController {
    struct Entry {
        var operation: ServiceOperation
        var label: String
        /// Why it cannot be invoked here and now; nil when it can.
        var unavailable: String?
    }

    struct Section {
        var title: String
        var entries: [Entry]
    }

    let screenID: ScreenID
    let breadcrumb: String
    let kindTitle = "Operations"
    let environment: BrowserEnvironment
    let sections: [Section]
    /// The entries in screen order, and the line each is drawn on (below its section's title).
    let entries: [Entry]
    var cursor = ListCursor()
    var message: String?
    /// The entity the row operations act on.
    let entity: CachedEntity?
    /// The entity set of the list the operations were asked for on (empty on the service's first screen).
    let set: String
    /// An action about to be sent, waiting for `y`: what it is, and its parameters.
    var confirming: (entry: Entry, arguments: [ODataProperty])?

    var statusSummary: String {
        entries.isEmpty ? "Esc to go back" : "Enter invokes · Esc goes back"
    }

    /// The operations for a list of `set`, and for `entity` (its selected row) when there is one; `wholeSet`: the
    /// list is the set's own (not a relation's or a function's), so what acts on all of the set is offered too,
    /// named so (it acts on every one, not only those a filter shows); `onDetail`: for
    /// the entity's own screen (the order and labels of its `UI.Identification` first).
    init(
        environment: BrowserEnvironment, set: String, entity: CachedEntity?, breadcrumb: String,
        wholeSet: Bool = false, onDetail: Bool = false
    ) {
        self.environment = environment
        self.screenID = environment.nextScreenID()
        self.breadcrumb = breadcrumb
        self.entity = entity
        self.set = set
        let model = environment.model
        let type = model.entityType(ofSet: set)
        let annotated =
            (onDetail ? type?.ui.identificationActions ?? type?.ui.lineItemActions : type?.ui.lineItemActions) ?? []
        func entry(_ operation: ServiceOperation, on entity: CachedEntity?) -> Entry {
            let field = annotated.first { model.operation(named: $0.action, boundTo: type?.qualifiedName) == operation }
            let label = TextSanitizer.sanitize(field?.label ?? operation.displayName)
            let readOnly =
                operation.kind == .action && environment.writes == nil
                ? "this browser only reads here" : nil
            return Entry(
                operation: operation, label: label, unavailable: readOnly ?? Self.unavailable(operation, on: entity))
        }
        /// `operations` in the annotations' order first, then the rest in the service's.
        func ordered(_ operations: [ServiceOperation]) -> [ServiceOperation] {
            let named = annotated.compactMap { model.operation(named: $0.action, boundTo: type?.qualifiedName) }
            return named.filter(operations.contains) + operations.filter { !named.contains($0) }
        }
        var sections: [Section] = []
        if let type, let entity {
            let bound = ordered(model.operations(boundTo: type.qualifiedName))
            if !bound.isEmpty {
                sections.append(
                    Section(
                        title: "On " + TextSanitizer.sanitize(environment.label(of: entity)),
                        entries: bound.map { entry($0, on: entity) }))
            }
        }
        // (an entity's own screen offers what acts on it)
        if let type, !onDetail, wholeSet {
            let onList = ordered(model.operations(boundTo: type.qualifiedName, collection: true))
            if !onList.isEmpty {
                sections.append(
                    Section(
                        title: "On all " + Self.setTitle(set, environment), entries: onList.map { entry($0, on: nil) }))
            }
        }
        let unbound = onDetail ? [] : ordered(model.unboundOperations)
        if !unbound.isEmpty {
            sections.append(Section(title: "Of the service", entries: unbound.map { entry($0, on: nil) }))
        }
        self.sections = sections
        self.entries = sections.flatMap(\.entries)
        cursor.setCount(entries.count)
        if let first = entries.firstIndex(where: { $0.unavailable == nil }) { cursor.move(by: first) }
    }

    /// Why `operation` cannot be invoked on `entity`: never offered, or its availability property false there.
    static func unavailable(_ operation: ServiceOperation, on entity: CachedEntity?) -> String? {
        switch operation.availability {
        case .always: return nil
        case .never: return "the service does not offer it now"
        case .path(let path):
            guard let entity, entity[path] == .bool(false) else { return nil }
            return "not for this one (\(path) is false)"
        }
    }

    func handle(_ key: Key) -> ScreenAction {
        defer { environment.setNeedsDisplay() }
        message = nil
        if let asked = confirming {
            confirming = nil
            guard key == .char("y") || key == .char("Y") else { return .handled }
            return send(asked.entry, arguments: asked.arguments)
        }
        if cursor.apply(key) { return .handled }
        switch key {
        case .enter, .right, .char("l"):
            guard let entry = entries[safe: cursor.selected] else { return .handled }
            return invoke(entry)
        default:
            return .ignored
        }
    }

    /// Enter on `entry`: its parameters asked for, then its answer opened; or why not.
    func invoke(_ entry: Entry) -> ScreenAction {
        if let reason = entry.unavailable {
            message = "\(entry.label): \(reason)."
            return .handled
        }
        let operation = entry.operation
        if operation.kind == .action, !operation.isBound || operation.isBoundToCollection || entity != nil {
            // An action (on the row, on the list, on the service): its parameters, then a question, then the outbox.
            let inputs = operation.inputs(keyNames: keyNames)
            guard !inputs.isEmpty else {
                confirming = (entry, [])
                return .handled
            }
            let form = EditFormController(
                environment: environment, parametersOf: operation, keyNames: keyNames, title: entry.label,
                breadcrumb: entry.label
            ) { [weak self] arguments in
                self?.confirming = (entry, arguments)
                return .success(.pop)
            }
            return .push(form)
        }
        if operation.answersOne {
            // A function answering one entity or a value: its parameters, then its answer as a screen of its own.
            let on = operation.isBound ? entity?.key : nil
            if let on, on.isTemporary {
                message = "\(entry.label): the row is not on the service yet; once it is sent, ask again."
                return .handled
            }
            let keyNames = self.keyNames
            guard !operation.inputs(keyNames: keyNames).isEmpty else {
                switch Self.answer(
                    of: operation, label: entry.label, arguments: [], on: on, keyNames: keyNames,
                    environment: environment)
                {
                case .success(let screen): return .push(screen)
                case .failure(let error):
                    message = error.description
                    return .handled
                }
            }
            let form = EditFormController(
                environment: environment, parametersOf: operation, keyNames: keyNames, title: entry.label,
                breadcrumb: entry.label
            ) { [environment] arguments in
                Self.answer(
                    of: operation, label: entry.label, arguments: arguments, on: on, keyNames: keyNames,
                    environment: environment
                ).map { ScreenAction.replace($0) }
            }
            return .push(form)
        }
        guard operation.listsEntities else {
            message =
                "\(entry.label): not invoked from this browser yet ("
                + (operation.isBoundToCollection ? "a function of all of them" : "it does not answer with a list")
                + ")."
            return .handled
        }
        guard !operation.parameters.isEmpty else {
            switch answer(of: operation, label: entry.label, arguments: []) {
            case .success(let screen): return .replace(screen)
            case .failure(let error):
                message = error.description
                return .handled
            }
        }
        let form = EditFormController(
            environment: environment, parametersOf: operation, title: entry.label, breadcrumb: entry.label
        ) { [environment] arguments in
            Self.answer(of: operation, label: entry.label, arguments: arguments, environment: environment).map {
                ScreenAction.replace($0)
            }
        }
        return .push(form)
    }

    /// The names of the row's key properties (a v2 action takes them as parameters of its own).
    var keyNames: [String] {
        guard let entity, let type = environment.model.entityType(ofSet: entity.entitySet) else { return [] }
        return environment.model.keyProperties(of: type)
    }

    /// `y` to an action: queued in the outbox, sent once. On the row: after the writes to it made before, against
    /// its version; on the list or the service: under a call of its own, waiting for nothing.
    func send(_ entry: Entry, arguments: [ODataProperty]) -> ScreenAction {
        guard let writes = environment.writes else {
            message = "This browser cannot change data of this service."
            return .handled
        }
        let operation = entry.operation
        if operation.isBound, !operation.isBoundToCollection {
            // (a key a service chose to look like a call's is not taken for one)
            guard let entity, !entity.key.isCall else {
                message = "\(entry.label): this row cannot be acted on from here."
                return .handled
            }
            writes.invoke(
                ActionInvocation(
                    key: entity.key, operation: operation.queuedName, parameters: arguments, baseEtag: entity.etag))
        } else {
            let on: EntityKey = .call(on: operation.isBoundToCollection ? set : nil)
            writes.invoke(ActionInvocation(key: on, operation: operation.queuedName, parameters: arguments))
        }
        return .pop
    }

    /// A set as its screens title it (`Cars`), sanitised.
    static func setTitle(_ set: String, _ environment: BrowserEnvironment) -> String {
        TextSanitizer.sanitize(environment.setProfile(set).title ?? set)
    }

    /// What an action is invoked on, as the question before it names it.
    func target(of operation: ServiceOperation) -> String {
        if operation.isBoundToCollection { return "all " + Self.setTitle(set, environment) }
        guard operation.isBound else { return "the service" }
        return entity.map { TextSanitizer.sanitize(environment.label(of: $0)) } ?? "this"
    }

    func answer(
        of operation: ServiceOperation, label: String, arguments: [ODataProperty]
    ) -> Result<any ScreenController, OperationCallError> {
        Self.answer(of: operation, label: label, arguments: arguments, environment: environment)
    }

    /// A call's crumb: the operation's label and the values given (`Cars built before 1990`).
    static func crumb(_ label: String, _ arguments: [ODataProperty]) -> String {
        let shown = arguments.filter { $0.value != .null }.map { FieldInput.text(of: $0.value) }
        return label + (shown.isEmpty ? "" : " " + shown.joined(separator: ", "))
    }

    /// The one answer a call of `operation` with `arguments` (on `entity`, when bound) reads, as a screen.
    static func answer(
        of operation: ServiceOperation, label: String, arguments: [ODataProperty], on entity: EntityKey?,
        keyNames: [String], environment: BrowserEnvironment
    ) -> Result<any ScreenController, OperationCallError> {
        let call: (path: ResourcePath, parameters: [(name: String, value: String)])
        do {
            call = try OperationRequestBuilder.call(operation, arguments: arguments, on: entity, keyNames: keyNames)
        } catch {
            return .failure(error)
        }
        var options = QueryOptions()
        options.custom = call.parameters
        let crumb = Self.crumb(label, arguments)
        return .success(
            CallResultController(
                environment: environment, call: ListRequest(path: call.path, options: options),
                breadcrumb: TextSanitizer.sanitize(crumb), kindTitle: TextSanitizer.sanitize(label)))
    }

    /// The list a call of `operation` with `arguments` reads, to show in place of the screen that asked for it.
    static func answer(
        of operation: ServiceOperation, label: String, arguments: [ODataProperty], environment: BrowserEnvironment
    ) -> Result<any ScreenController, OperationCallError> {
        let list: (path: ResourcePath, parameters: [(name: String, value: String)])
        do {
            list = try OperationRequestBuilder.resultList(operation, arguments: arguments)
        } catch {
            return .failure(error)
        }
        var options = QueryOptions()
        options.custom = list.parameters
        let crumb = Self.crumb(label, arguments)
        let set = operation.entitySet ?? ""
        let title = environment.setProfile(set).title ?? set
        return .success(
            EntityListController(
                environment: environment, source: .list(ListRequest(path: list.path, options: options)),
                breadcrumb: TextSanitizer.sanitize(crumb), kindTitle: title))
    }

    func layout(rows: Int, columns: Int) {
        cursor.setPageSize(max(1, rows - sections.count - 2))
    }

    func render(into buffer: inout ScreenBuffer, rows: Range<Int>) {
        let width = buffer.size.columns
        guard !entries.isEmpty else {
            buffer.put(
                "The service offers nothing to do here.", row: rows.lowerBound, column: 1,
                style: CellStyle(role: .muted))
            return
        }
        var line = rows.lowerBound
        var index = 0
        let footer = rows.upperBound - 1
        for section in sections {
            guard line < footer else { break }
            buffer.put(section.title, row: line, column: 1, width: width - 2, style: CellStyle([.bold], role: .header))
            line += 1
            for entry in section.entries {
                defer { index += 1 }
                guard index >= cursor.top, line < footer else { continue }
                SelectionGutter.draw(selected: index == cursor.selected, line: line, into: &buffer)
                let role: ColorRole = entry.unavailable == nil ? .normal : .muted
                let end = buffer.put(
                    entry.label, row: line, column: SelectionGutter.width, width: width / 2,
                    style: CellStyle(role: role))
                let kind = entry.operation.kind == .action ? "action" : "function"
                let note = entry.unavailable.map { kind + " · " + $0 } ?? kind
                buffer.put(
                    note, row: line, column: end + 2, width: max(0, width - end - 3), style: CellStyle(role: .muted))
                line += 1
            }
        }
        if let asked = confirming {
            let target = target(of: asked.entry.operation)
            let parameters = asked.arguments.map { "\($0.name) \(FieldInput.text(of: $0.value))" }
            buffer.put(
                "\(asked.entry.label) on \(target)"
                    + (parameters.isEmpty
                        ? "" : " (" + TextSanitizer.sanitize(parameters.joined(separator: ", ")) + ")")
                    + "? y sends it (the outbox shows it until the service answers); any other key does not.",
                row: footer, column: 1, width: width - 2, style: CellStyle([.bold], role: .warning))
        } else if let message {
            buffer.put(message, row: footer, column: 1, width: width - 2, style: CellStyle([.bold], role: .error))
        }
    }
}
