import EntityCache
import ODataCore
import ScreenSeam
import Terminal

/// A form for changing one entity, built from `$metadata`: one field per property, typed input and validation
/// per Edm type (``FieldInput``), keys and server-set fields read-only.
///
/// Tab / Shift-Tab and ↓ / ↑ move between fields; ← → Home End Backspace Delete and Ctrl-U edit the field;
/// Enter (or Ctrl-S) saves; Esc cancels, asking first when something was typed. Invalid input is refused next to
/// its field before anything is queued. Saving hands the changed fields to the fetcher (``WriteIntents``), which
/// records them in the cache at once: the screen below shows them in its next frame, marked pending.
/// What was typed lives here, so a resize never loses it; wide text scrolls within its field.
@MainActor
public final class EditFormController: ScreenController {
    struct Field {
        var input: FieldInput
        var label: String
        var original: ODataValue?
        var text: String
        /// The caret, in characters.
        var caret: Int
        /// Why the field cannot be edited, when it cannot.
        var readOnly: String?
        var error: String?
        /// A hint shown after the box while the field is empty.
        var note: String? = nil
        /// A new entity added through a link entity: this field is the link's own (its key, where the service does
        /// not choose one), not the new entity's.
        var isLinkField = false
        /// A line shown above the field (where the link entity's fields start).
        var heading: String? = nil

        var isEditable: Bool { readOnly == nil }
        /// The lines the field takes: its heading, itself, and its error.
        var lineCount: Int { (heading == nil ? 0 : 1) + 1 + (error == nil ? 0 : 1) }
    }

    public let screenID: ScreenID
    public let breadcrumb: String
    public var kindTitle: String { onParameters != nil ? "Invoke" : creating == nil ? "Edit" : "New" }
    let environment: BrowserEnvironment
    let key: EntityKey?
    /// A form for a new entity: its set, and the screen it is added to (see ``EntityCreation``).
    var creating: (entitySet: String, addedTo: ScreenContent?)?
    /// The type a new entity is made of, where it is one derived from its set's (sent as `@odata.type`).
    var createdType: String?
    var fields: [Field]
    var focus: Int
    var top = 0
    var rows = 10
    /// A sentence at the foot of the form (why saving did not happen).
    var message: String?
    var confirmingCancel = false
    /// A sentence about the form itself, shown at its foot while no ``message`` is (a draft resumed, say).
    var notice: String?
    /// The draft this form edits, on a set the service edits through drafts.
    var draft = FormDraft()
    /// Where the changed fields go; nil hands them to the fetcher as a new change (the outbox's edit of a failed
    /// or conflicting change sends them in its place).
    var onSave: (@MainActor ([ODataProperty]) -> Void)?
    /// A new entity's form: called once it is handed to the fetcher (the list it joins puts its cursor on it).
    var onCreate: (@MainActor () -> Void)?
    /// A form for an operation's parameters (issue 36): what its Enter does with every value typed, and its title.
    var onParameters: (@MainActor ([ODataProperty]) -> Result<ScreenAction, OperationCallError>)?
    /// An operation's parameters as properties (their value help), by name; empty for an entity's form.
    var parameterProperties: [String: Property] = [:]
    /// Where a value-help service may aim the mapping of each parameter (``ServiceOperation/valueListTargets(of:)``).
    var parameterTargets: [String: [String]] = [:]
    var parametersTitle: String?
    /// While fields wait for the whole entity: its observation.
    var observation: CacheObservation?
    /// The version of the entity the form opened on: the change is made against it (`If-Match`), whatever copy
    /// arrives while the form is open.
    var baseEtag: String?
    /// Values refused once as not among a field's fixed values (field name, NUL, text): sent if saved again.
    var refusedFixedValues: Set<String> = []

    /// A form for `entity`, focused on `property` when given (Enter on a field of the detail screen).
    public init?(
        environment: BrowserEnvironment, entity: CachedEntity, breadcrumb: String, focusOn property: String? = nil
    ) {
        let model = environment.model
        guard let type = model.entityType(ofSet: entity.entitySet) else { return nil }
        let setUpdatable = model.entitySet(named: entity.entitySet)?.isUpdatable ?? true
        self.environment = environment
        self.key = entity.key
        self.baseEtag = entity.etag
        self.breadcrumb = breadcrumb
        self.screenID = environment.nextScreenID()
        let keys = Set(model.keyProperties(of: type))
        let columns = environment.setProfile(entity.entitySet).columns ?? []
        // A copy cut to what a list shows: the fields it lacks wait, read-only, until the whole entity is here.
        let present = Set(entity.properties.map(\.name))
        let fields = model.properties(of: type).map { property in
            let input = FieldInput(property)
            let label = Self.label(of: property, columns: columns)
            guard entity.isComplete || present.contains(property.name) else {
                return Field(
                    input: input, label: label, original: nil, text: "", caret: 0, readOnly: Self.notLoaded)
            }
            let text = FieldInput.text(of: entity[property.name])
            return Field(
                input: input, label: label, original: entity[property.name], text: text, caret: text.count,
                readOnly: Self.readOnlyReason(
                    property, input: input, text: text, isKey: keys.contains(property.name),
                    setUpdatable: setUpdatable))
        }
        let wanted = property.flatMap { name in fields.firstIndex { $0.input.name == name && $0.isEditable } }
        self.fields = fields
        focus = wanted ?? fields.firstIndex(where: \.isEditable) ?? 0
    }

    /// A form for the parameters of `operation`, typed and checked as an entity's fields are; Enter hands every
    /// value to `onSubmit` (empty ones that may be left out are left out), which says where to go (the answer in
    /// the form's place, back to ask for a confirmation), or why not at the form's foot.
    init(
        environment: BrowserEnvironment, parametersOf operation: ServiceOperation, keyNames: [String] = [],
        title: String, breadcrumb: String,
        onSubmit: @escaping @MainActor ([ODataProperty]) -> Result<ScreenAction, OperationCallError>
    ) {
        self.environment = environment
        self.key = nil
        self.breadcrumb = breadcrumb
        self.screenID = environment.nextScreenID()
        self.fields = operation.inputs(keyNames: keyNames).map { parameter in
            var input = FieldInput(
                name: parameter.name, type: parameter.primitiveType ?? .string, isNullable: parameter.isNullable,
                maxLength: parameter.maxLength, precision: parameter.precision, scale: parameter.scale)
            input.enumeration = parameter.enumeration
            let label = TextSanitizer.sanitize(parameter.label ?? parameter.name)
            input.shownName = label
            let typed = parameter.primitiveType.map { FieldInput(name: "", type: $0).isEditable } ?? false
            // (the service's default, as it would take it if left out; a hostile one is text like any other)
            let start = typed ? TextSanitizer.sanitize(String((parameter.defaultValue ?? "").prefix(200))) : ""
            return Field(
                input: input, label: label, original: nil, text: start, caret: start.count,
                readOnly: typed ? nil : "cannot be typed here",
                note: parameter.isNullable ? "may be left empty" : nil)
        }
        self.focus = fields.firstIndex(where: \.isEditable) ?? 0
        self.onParameters = onSubmit
        self.parametersTitle = title
        self.parameterTargets = Dictionary(
            operation.inputs(keyNames: keyNames).map { ($0.name, operation.valueListTargets(of: $0.name)) },
            uniquingKeysWith: { first, _ in first })
        self.parameterProperties = Dictionary(
            operation.inputs(keyNames: keyNames).compactMap { parameter in
                parameter.primitiveType.map { type in
                    var property = Property(
                        name: parameter.name, type: .primitive(type), isNullable: parameter.isNullable,
                        maxLength: parameter.maxLength, precision: parameter.precision, scale: parameter.scale,
                        label: parameter.label)
                    property.valueList = parameter.valueList
                    property.hasFixedValues = parameter.hasFixedValues
                    property.valueListReferences = parameter.valueListReferences
                    property.enumeration = parameter.enumeration
                    return (parameter.name, property)
                }
            }, uniquingKeysWith: { first, _ in first })
    }

    /// Why a field of an existing entity cannot be changed; nil when it can.
    static func readOnlyReason(
        _ property: Property, input: FieldInput, text: String, isKey: Bool, setUpdatable: Bool
    ) -> String? {
        if isKey { return "key" }
        if !setUpdatable { return "the service does not let it change" }
        if property.isConcurrencyToken || !property.isUpdatable { return "set by the service" }
        guard case .primitive = property.type, input.isEditable else { return "cannot be typed here" }
        // A value of megabytes (a hostile or careless server) would make every frame of the form crawl.
        if text.utf8.count > Self.longestEditable { return "too long to change here: \(text.utf8.count / 1024) KB" }
        return nil
    }

    /// A field of an entity known only in part (a list's prefetch), until the whole entity arrives.
    static let notLoaded = "not loaded yet"

    /// The fields still waiting for the whole entity.
    var notLoadedFields: [String] { fields.filter { $0.readOnly == Self.notLoaded }.map(\.label) }

    public func willAppear() {
        openDraft()
        guard let key, !notLoadedFields.isEmpty else { return }
        observation = environment.cache.observeEntity(key) { [weak self] entity in
            guard let self, let entity, entity.isComplete else { return }
            self.fillNotLoaded(from: entity)
        }
    }

    public func didAppear() {
        // The fetcher fetches the whole entity for this screen, as for its detail screen.
        guard let key, !notLoadedFields.isEmpty else { return }
        environment.intents.screenDidShow(.entity(key), visible: 0..<1, screen: screenID)
    }

    public func didDisappear() {
        observation?.cancel()
        observation = nil
    }

    /// The whole entity arrived: the fields that were not loaded take their values and can be changed; what was
    /// typed meanwhile stays.
    func fillNotLoaded(from entity: CachedEntity) {
        let model = environment.model
        guard let type = model.entityType(ofSet: entity.entitySet) else { return }
        let keys = Set(model.keyProperties(of: type))
        let setUpdatable = model.entitySet(named: entity.entitySet)?.isUpdatable ?? true
        let declared = model.properties(of: type)
        for index in fields.indices where fields[index].readOnly == Self.notLoaded {
            guard let property = declared.first(where: { $0.name == fields[index].input.name }) else { continue }
            let text = FieldInput.text(of: entity[property.name])
            fields[index].original = entity[property.name]
            fields[index].text = text
            fields[index].caret = text.count
            fields[index].readOnly = Self.readOnlyReason(
                property, input: fields[index].input, text: text, isKey: keys.contains(property.name),
                setUpdatable: setUpdatable)
        }
        observation?.cancel()
        observation = nil
        environment.setNeedsDisplay()
    }

    /// A form for a new entity of `entitySet`, added to `addedTo` (the list or relation on screen): every property
    /// the service lets a client set; keys may be left empty for the service to give. Nil when the service does
    /// not let this set take new entities (`sap:creatable="false"`) or `$metadata` does not describe it.
    public init?(
        environment: BrowserEnvironment, creatingIn entitySet: String, addedTo: ScreenContent?, breadcrumb: String,
        of derived: EntityType? = nil
    ) {
        let model = environment.model
        guard let setType = model.entityType(ofSet: entitySet), model.entitySet(named: entitySet)?.isCreatable ?? true
        else { return nil }
        // (one of a type derived from the set's, where the list is narrowed to it: `:type Mechanic`, then `a`)
        let type = derived.flatMap { model.isType($0.qualifiedName, derivedFrom: setType) ? $0 : nil } ?? setType
        self.environment = environment
        self.key = nil
        self.creating = (entitySet, addedTo)
        if type.qualifiedName != setType.qualifiedName { createdType = type.qualifiedName }
        self.breadcrumb = breadcrumb
        self.screenID = environment.nextScreenID()
        let keys = Set(model.keyProperties(of: type))
        fields = Self.newFields(of: type, in: model, columns: environment.setProfile(entitySet).columns ?? [])
        // Added through a link entity (a car to a person's cars, through a new PersonCar): the link's own fields
        // too, after the entity's. A service that wants the link's key from the client refuses the link without
        // it, and the new entity would be left on it linked to nobody.
        if case .related(let parent, let path)? = addedTo, path.count == 2,
            let linkSet = environment.targetSet(from: parent.entitySet, path: [path[0]]),
            let linkType = model.entityType(ofSet: linkSet)
        {
            var linkFields = Self.newFields(of: linkType, in: model, columns: [])
            if linkFields.contains(where: \.isEditable) {
                let parentName = ((try? environment.cache.entity(parent)) ?? nil).map(environment.label(of:))
                for index in linkFields.indices { linkFields[index].isLinkField = true }
                // (named as the service names one of them, `UI.HeaderInfo`'s `TypeName`, else by its set)
                let linkName = linkType.ui.typeName.map { String($0.prefix(40)) } ?? linkSet
                linkFields[0].heading = "The \(linkName) that links it to \(parentName ?? parent.canonical):"
                fields += linkFields
            }
        }
        focus =
            fields.firstIndex { $0.isEditable && !keys.contains($0.input.name) } ?? fields.firstIndex(
                where: \.isEditable) ?? 0
    }

    public var takesText: Bool { true }

    public var statusSummary: String {
        let waiting = notLoadedFields
        let keys =
            (focusedHasValueHelp ? "F4 lists values · " : "")
            + (draft.isOpen ? "Enter saves · Esc discards the draft" : "Enter saves · Esc cancels") + " · Tab moves"
        guard !waiting.isEmpty else { return keys }
        return "not loaded yet, asked of the service: " + waiting.joined(separator: ", ") + " · " + keys
    }

    public func layout(rows: Int, columns: Int) {
        self.rows = max(1, rows - 2)
    }

    public func update() {
        // Keep the focused field (and its error line) in view.
        let line = lineOf(focus)
        let first = line - (fields[safe: focus]?.heading == nil ? 0 : 1)
        if first < top { top = first }
        let end = line + (fields[safe: focus]?.error == nil ? 1 : 2)
        if end > top + rows { top = end - rows }
    }

    /// The screen line of field `index` itself (below its heading; fields with an error take two lines).
    func lineOf(_ index: Int) -> Int {
        fields.prefix(index).reduce(0) { $0 + $1.lineCount } + (fields[safe: index]?.heading == nil ? 0 : 1)
    }

    public func handle(_ key: Key) -> ScreenAction {
        defer { environment.setNeedsDisplay() }
        if confirmingCancel {
            switch key {
            case .char("y"), .char("Y"):
                leaveDraft()
                return .pop
            default:
                confirmingCancel = false
                return .handled
            }
        }
        message = nil
        switch key {
        case .escape:
            guard isModified else {
                leaveDraft()
                return .pop
            }
            confirmingCancel = true
        case .enter, .ctrl("s"):
            return save()
        case .tab, .down:
            move(by: 1)
        case .backTab, .up:
            move(by: -1)
        case .function(4):
            return valueHelp()
        default:
            edit(key)
        }
        return .handled
    }

    func move(by step: Int) {
        keepInDraft(focus)
        var index = focus
        for _ in fields.indices {
            index = (index + step + fields.count) % fields.count
            if fields[index].isEditable { break }
        }
        focus = index
    }

    /// Typing into the focused field.
    func edit(_ key: Key) {
        guard fields.indices.contains(focus), fields[focus].isEditable else { return }
        var field = fields[focus]
        var characters = Array(field.text)
        switch key {
        case .char(let character):
            characters.insert(character, at: field.caret)
            field.caret += 1
        case .backspace where field.caret > 0:
            characters.remove(at: field.caret - 1)
            field.caret -= 1
        case .delete where field.caret < characters.count:
            characters.remove(at: field.caret)
        case .left: field.caret = max(0, field.caret - 1)
        case .right: field.caret = min(characters.count, field.caret + 1)
        case .home, .ctrl("a"): field.caret = 0
        case .end, .ctrl("e"): field.caret = characters.count
        case .ctrl("u"):
            characters = []
            field.caret = 0
        default: return
        }
        field.text = String(characters)
        field.error = nil
        fields[focus] = field
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
