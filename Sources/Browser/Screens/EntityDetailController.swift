import EntityCache
import ODataCore
import ScreenSeam
import Terminal

/// One entity: every property, formatted, then its navigations to drill into.
@MainActor
public final class EntityDetailController: ScreenController {
    public let screenID: ScreenID
    public let breadcrumb: String
    /// The service's name for one of these (`UI.HeaderInfo`'s `TypeName`) where the list is titled by its plural;
    /// else the list's title and "detail".
    public var kindTitle: String {
        let title = environment.setProfile(key.entitySet).title
        if let ui = environment.model.entityType(ofSet: key.entitySet)?.ui, let name = ui.typeName,
            !name.allSatisfy(\.isWhitespace), title == nil || title == ui.typeNamePlural
        {
            return String(name.prefix(60))
        }
        return title.map { "\($0) detail" } ?? "Detail"
    }
    let environment: BrowserEnvironment
    let key: EntityKey
    var entity: CachedEntity? {
        didSet {
            builtLines = nil
            askStreamLengths()
        }
    }
    /// The streams whose size this screen asked the service for (once each).
    var askedLengths: Set<String> = []
    /// ``lines`` as last built: a keypress and the frame after it read them several times, and they change only
    /// with the entity (sections, texts and currencies are worked out once per copy of it).
    private var builtLines: [Line]?
    var loaded = false
    var cursor = ListCursor()
    var observation: CacheObservation?

    /// How deep structured values are opened as lines of their own; deeper ones are summed up on one line.
    static let deepestStructure = 4
    /// The most elements of a collection shown as lines (the full-value view, `v`, has them all).
    static let mostElements = 50
    /// The most lines structured values open into, in all (nested collections multiply).
    static let mostStructureLines = 2_000

    /// `lines`, with each structured value opened: a complex value's members one per line under its own, indented,
    /// by their labels where the model has its type; a collection's elements one per line, numbered. Enter or `v` on
    /// any of them reads the whole value.
    func structured(_ lines: [Line], of entity: CachedEntity, declared: [Property]) -> [Line] {
        let model = environment.model
        var result: [Line] = []
        var opened = 0
        func open(_ value: ODataValue, type: EdmTypeReference?, under line: Line, depth: Int) {
            let indent = String(repeating: "  ", count: depth)
            switch value {
            case .complex(let members) where GeoShape(value) == nil && depth <= Self.deepestStructure:
                var typeName: String?
                if case .named(let name)? = type { typeName = name }
                let memberTypes = typeName.flatMap { model.complexTypes[$0]?.properties } ?? []
                for member in members {
                    let declared = memberTypes.first { $0.name == member.name }
                    let label = indent + TextSanitizer.sanitize(declared?.label ?? member.name)
                    add(member.value, type: declared?.type, label: label, under: line, depth: depth)
                }
            case .collection(let elements) where depth <= Self.deepestStructure:
                var elementType: EdmTypeReference?
                if case .collection(let inner)? = type { elementType = inner }
                for (index, element) in elements.prefix(Self.mostElements).enumerated() {
                    add(element, type: elementType, label: indent + "\(index + 1)", under: line, depth: depth)
                }
                if elements.count > Self.mostElements {
                    var more = line
                    (more.label, more.value) = (
                        indent + "…", "\(elements.count - Self.mostElements) more (v shows all)"
                    )
                    result.append(more)
                }
            default:
                break
            }
        }
        func add(_ value: ODataValue, type: EdmTypeReference?, label: String, under line: Line, depth: Int) {
            guard opened < Self.mostStructureLines else { return }
            opened += 1
            var member = line
            member.label = label
            member.criticality = nil
            let opens = Self.opens(value) && depth < Self.deepestStructure
            member.value = opens ? Self.summary(of: value) : ValueFormatter.format(value)
            result.append(member)
            if opens { open(value, type: type, under: line, depth: depth + 1) }
        }
        for line in lines {
            guard !line.isHeading, line.navigation == nil, line.hop == nil, !line.name.isEmpty,
                let value = entity[line.name], Self.opens(value)
            else {
                result.append(line)
                continue
            }
            var summed = line
            summed.value = Self.summary(of: value)
            result.append(summed)
            open(value, type: declared.first { $0.name == line.name }?.type, under: line, depth: 1)
        }
        return result
    }

    /// Whether a value is opened as lines of its own: a complex value (not a place or shape) or a collection.
    static func opens(_ value: ODataValue) -> Bool {
        switch value {
        case .complex: GeoShape(value) == nil
        case .collection(let elements): !elements.isEmpty
        default: false
        }
    }

    /// What the line of an opened value says: nothing for a structure, the count for a collection.
    static func summary(of value: ODataValue) -> String {
        guard case .collection(let elements) = value else { return "" }
        return elements.count == 1 ? "1 item" : "\(elements.count) items"
    }

    /// The longest a dynamic property's name is shown.
    static let widestDynamicName = 60

    /// Navigation properties of the entity's type, from `$metadata`: a derived type's own too, once the entity says
    /// it is of that type.
    var navigations: [String] {
        let model = environment.model
        guard let type = model.entityType(named: entity?.type, inSet: key.entitySet) else { return [] }
        return model.navigationProperties(of: type).map(\.name)
    }

    public init(environment: BrowserEnvironment, key: EntityKey, breadcrumb: String) {
        self.environment = environment
        self.key = key
        self.breadcrumb = breadcrumb
        self.screenID = environment.nextScreenID()
    }

    /// One line of the detail: a property, a navigation to drill into, or a section's heading.
    struct Line {
        var label: String
        var value: String
        /// The navigation Enter follows.
        var navigation: String?
        /// The property shown (empty on a heading or a navigation).
        var name: String
        var isHeading = false
        /// A path through a link entity to what it links (`[PersonCar, Car]`): Enter opens those.
        var hop: [String]? = nil
        /// How good or bad the value is (`UI.Criticality`), and whether a mark says so beside it.
        var criticality: CriticalityStyle? = nil
        var marksCriticality = true
        /// A stream (the entity's media, or a stream property): `:save FILE` saves it from this line.
        var stream: MediaStream? = nil
    }

    /// Lines: one per property, then one per navigation; where the service declares `UI.Facets`, in its sections
    /// (a field group's fields under its label, a navigation's line item as a line to enter), then what no section
    /// shows under "More", so that nothing the entity holds is hidden.
    /// A property shows under its `$metadata` label (`sap:label`, `Common.Label`) when the service gives one.
    var lines: [Line] {
        if let builtLines { return builtLines }
        let built = buildLines()
        builtLines = built
        return built
    }

    func buildLines() -> [Line] {
        let model = environment.model
        let setType = model.entityType(ofSet: key.entitySet)
        // (its own type where it is of one derived from its set's, as the service said and the model allows)
        let type = model.entityType(named: entity?.type, inSet: key.entitySet)
        // (once per build: ``navigations`` works them out from the type each time it is read)
        let navigations = type.map { model.navigationProperties(of: $0).map(\.name) } ?? []
        let declared = type.map { model.properties(of: $0) } ?? []
        let present = Set((entity?.properties ?? []).map(\.name))
        let loading = entity.map { !$0.isComplete } ?? false
        /// A property's line: its value, or (in a copy cut to what a list shows) that the rest is on its way.
        func field(_ name: String, label: String? = nil, data: DataField? = nil) -> Line? {
            let property = declared.first { $0.name == name }
            let title = label ?? property?.label ?? name
            if present.contains(name), let entity, entity[name] != nil {
                let template =
                    property.map { property in
                        ValueFormatter.template(for: property) { other in declared.contains { $0.name == other } }
                    } ?? "{\(name)}"
                // (a plain value as it is: a template's filling trims its edges)
                let value =
                    template == "{\(name)}"
                    ? ValueFormatter.format(entity[name] ?? .null) : ValueFormatter.fill(template) { entity[$0] }
                var line = Line(label: title, value: value, navigation: nil, name: name)
                if let level = (data?.criticality ?? property?.criticality)?.level({ entity[$0] }) {
                    line.criticality = CriticalityStyle(level)
                    line.marksCriticality = data?.marksCriticality ?? true
                }
                return line
            }
            guard loading, property != nil else { return nil }
            return Line(label: title, value: "loading…", navigation: nil, name: name)
        }
        var result: [Line] = []
        var shownFields: Set<String> = []
        var shownNavigations: Set<String> = []
        if let ui = type?.ui, let facets = ui.facets, entity != nil {
            func add(_ facets: [Facet], depth: Int) {
                for facet in facets {
                    var section: [Line] = []
                    var fields: [DataField] = []
                    switch facet.target {
                    case .fieldGroup(let qualifier): fields = ui.fieldGroups[qualifier]?.data ?? []
                    case .identification: fields = ui.identification ?? []
                    case .lineItem(let navigation) where navigations.contains(navigation):
                        shownNavigations.insert(navigation)
                        section.append(
                            Line(label: facet.label ?? navigation, value: "›", navigation: navigation, name: ""))
                    case .lineItem: continue
                    case .collection:
                        if let label = facet.label {
                            result.append(Line(label: label, value: "", navigation: nil, name: "", isHeading: true))
                        }
                        add(facet.facets, depth: depth + 1)
                        continue
                    }
                    for data in fields where !shownFields.contains(data.path) {
                        guard let line = field(data.path, label: data.label, data: data) else { continue }
                        shownFields.insert(data.path)
                        section.append(line)
                    }
                    guard !section.isEmpty else { continue }
                    if section.count > 1 || section[0].navigation == nil, let label = facet.label {
                        result.append(Line(label: label, value: "", navigation: nil, name: "", isHeading: true))
                    }
                    result += section
                }
            }
            add(facets, depth: 0)
        }
        let names = (entity?.properties.map(\.name) ?? []) + (loading ? declared.map(\.name) : [])
        var rest: [Line] = []
        var dynamic: [Line] = []
        var seen = shownFields
        // (what the payload said of a stream is not a property: MediaStream)
        for name in names where !seen.contains(name) && !name.contains("@") {
            seen.insert(name)
            guard var line = field(name) else { continue }
            if declared.contains(where: { $0.name == name }) {
                rest.append(line)
            } else {
                // (a property the schema does not declare: its name is the service's word, shown as text)
                line.label = String(TextSanitizer.sanitize(name).prefix(Self.widestDynamicName))
                dynamic.append(line)
            }
        }
        if !result.isEmpty, !rest.isEmpty {
            result.append(Line(label: "More", value: "", navigation: nil, name: "", isHeading: true))
        }
        result += rest
        if let type, let setType, type.qualifiedName != setType.qualifiedName {
            // (an entity of a derived type says which, first; then its streams)
            let name = TextSanitizer.sanitize(type.ui.typeName ?? type.name)
            result.insert(Line(label: "Type", value: String(name.prefix(60)), navigation: nil, name: ""), at: 0)
        }
        let typeLines = result.first.map { $0.label == "Type" && $0.name.isEmpty && !$0.isHeading } == true ? 1 : 0
        result.insert(contentsOf: streamLines(type: type, declared: declared), at: typeLines)
        if let draft = draftLine() { result.insert(draft, at: 0) }
        if !dynamic.isEmpty {
            // Dynamic properties (an open type's), after the declared ones, never among them.
            let heading = type.map(model.isOpen) == true ? "Dynamic properties" : "Not in $metadata"
            result.append(Line(label: heading, value: "", navigation: nil, name: "", isHeading: true))
            result += dynamic
        }
        for navigation in navigations where !shownNavigations.contains(navigation) {
            // A navigation to link entities (a person's PersonCar rows, each holding only keys, stamps and two
            // to-one navigations) first offers what they link, under that set's title ("Cars"); the link entities
            // themselves stay on the line after it.
            if let hop = environment.model.linkHop(navigation, fromSet: key.entitySet),
                let far = environment.targetSet(from: key.entitySet, path: hop)
            {
                let title = environment.setProfile(far).title ?? far
                result.append(Line(label: title, value: "› through \(navigation)", name: "", hop: hop))
            }
            result.append(Line(label: navigation, value: "›", navigation: navigation, name: navigation))
        }
        return entity.map { structured(result, of: $0, declared: declared) } ?? result
    }

    /// Where the entity's set is edited through drafts and it has one (or is one): who edits that draft and since
    /// when, first, as its `DraftAdministrativeData` (cached with it) says.
    func draftLine() -> Line? {
        guard let entity, entity["HasDraftEntity"] == .bool(true) || entity[DraftActions.activeKey] == .bool(false),
            let administration = environment.draftAdministration(of: key)
        else { return nil }
        let since = administration.since.map { ", since " + ValueFormatter.format($0) } ?? ""
        let who = administration.user.map { String(TextSanitizer.sanitize($0).prefix(60)) }
        let value: String
        switch (administration.isMine, administration.isOpen, who) {
        case (true, true, _): value = "yours" + since
        case (true, false, _): value = "yours" + since + " (not open now)"
        case (false, true, let who?): value = "\(who) is editing it" + since
        case (false, false, let who?): value = "made by \(who)" + since + " (nobody has it open)"
        default: value = "someone else's" + since
        }
        return Line(label: "Draft", value: value, navigation: nil, name: "")
    }

    /// A line for the entity's media (a media entity's, `HasStream`) and one for each stream property: what the
    /// service says the content is, and that `:save FILE` saves it. The content itself is never drawn.
    func streamLines(type: EntityType?, declared: [Property]) -> [Line] {
        guard let entity else { return [] }
        var lines: [Line] = []
        let own = MediaStream.described(in: entity.properties)
        if type.map(environment.model.hasStream) == true || own != nil {
            let stream = own ?? MediaStream()
            lines.append(Line(label: "Media", value: Self.streamText(stream), name: "", stream: stream))
        }
        for property in declared where property.type == .primitive(.stream) {
            let stream =
                MediaStream.described(in: entity.properties, property: property.name)
                ?? MediaStream(property: property.name)
            lines.append(
                Line(label: property.label ?? property.name, value: Self.streamText(stream), name: "", stream: stream))
        }
        return lines
    }

    /// `image/png · 4.0 KB · :save FILE saves it`.
    static func streamText(_ stream: MediaStream) -> String {
        let size = stream.length.map { " · " + ByteCountText.format(Int(clamping: $0)) } ?? ""
        return (stream.contentType.map { String($0.prefix(80)) } ?? "content") + size + " · :save FILE saves it"
    }

    /// Asks the service how large each stream shown here is, once per stream and version while the copy says
    /// nothing of it (content uploaded since is a new version, whose size is asked again).
    func askStreamLengths() {
        guard let downloads = environment.downloads, !key.isTemporary else { return }
        for line in lines {
            guard let stream = line.stream, stream.length == nil,
                askedLengths.insert(stream.lengthKey + "\u{1F}" + (stream.etag ?? "")).inserted
            else { continue }
            downloads.measure(stream, of: key)
        }
    }

    /// What `:save` saves here: the stream under the cursor, else the entity's media; nil when it has none.
    var streamToSave: (key: EntityKey, stream: MediaStream)? {
        guard !key.isTemporary else { return nil }
        let all = lines
        if all.indices.contains(cursor.selected), let stream = all[cursor.selected].stream { return (key, stream) }
        guard let media = all.first(where: { $0.stream != nil && $0.stream?.property == nil })?.stream else {
            return nil
        }
        return (key, media)
    }

    /// Off a section's heading, onto the nearest line in the direction moved (back the other way at an end).
    func skipHeading(forward: Bool) {
        let all = lines
        guard all.indices.contains(cursor.selected), all[cursor.selected].isHeading else { return }
        let ahead =
            forward
            ? Array(all.indices.suffix(from: cursor.selected)) : all.indices.prefix(through: cursor.selected).reversed()
        let behind =
            forward
            ? all.indices.prefix(through: cursor.selected).reversed() : Array(all.indices.suffix(from: cursor.selected))
        guard let target = ahead.first(where: { !all[$0].isHeading }) ?? behind.first(where: { !all[$0].isHeading })
        else { return }
        cursor.move(by: target - cursor.selected)
    }

    public func willAppear() {
        entity = try? environment.cache.entity(key)
        loaded = entity != nil
        cursor.setCount(lines.count)
        skipHeading(forward: true)
        observation = environment.cache.observeEntity(key) { [weak self] entity in
            guard let self else { return }
            self.entity = entity
            self.loaded = true
            self.cursor.setCount(self.lines.count)
            self.skipHeading(forward: true)
            self.environment.setNeedsDisplay()
        }
    }

    public func didAppear() {
        environment.intents.screenDidShow(.entity(key), visible: 0..<1, screen: screenID)
    }

    public func didDisappear() {
        observation?.cancel()
        observation = nil
    }

    public func refresh() {
        environment.intents.refresh(screen: screenID)
    }

    public func handle(_ key: Key) -> ScreenAction {
        let before = cursor.selected
        if cursor.apply(key) {
            skipHeading(forward: cursor.selected >= before)
            environment.setNeedsDisplay()
            return .handled
        }
        switch key {
        case .enter, .right, .char("l"):
            let all = lines
            guard cursor.selected < all.count else { return .handled }
            guard !all[cursor.selected].isHeading else { return .handled }
            if let hop = all[cursor.selected].hop {
                return .push(
                    EntityListController(
                        environment: environment, source: .related(parent: self.key, path: hop),
                        breadcrumb: all[cursor.selected].label, kindTitle: all[cursor.selected].label))
            }
            guard let navigation = all[cursor.selected].navigation else {
                // A field: change it where this session writes and the field can be typed, else read it whole.
                let property = all[cursor.selected].name
                if environment.writes != nil, let form = editForm(focusOn: property),
                    form.fields.first(where: { $0.input.name == property })?.isEditable == true
                {
                    return .push(form)
                }
                return fullValue(of: property).map(ScreenAction.push) ?? .handled
            }
            return .push(
                EntityListController(
                    // This screen already names the entity; the list names the navigation followed (by the label of
                    // the section that shows it, where the service declares one).
                    environment: environment, source: .related(parent: self.key, path: [navigation]),
                    breadcrumb: all[cursor.selected].label, kindTitle: all[cursor.selected].label
                ))
        case .char("v"):
            let all = lines
            guard cursor.selected < all.count, all[cursor.selected].navigation == nil, !all[cursor.selected].isHeading,
                all[cursor.selected].hop == nil
            else { return .handled }
            return fullValue(of: all[cursor.selected].name).map(ScreenAction.push) ?? .handled
        case .char("e"):
            return editForm(focusOn: nil).map(ScreenAction.push) ?? .handled
        case .char("!"):
            return .push(
                OperationsController(
                    environment: environment, set: self.key.entitySet, entity: entity, breadcrumb: "Operations",
                    onDetail: true))
        default:
            return .ignored
        }
    }

    /// The form that changes this entity, as cached now.
    func editForm(focusOn property: String?) -> EditFormController? {
        // Not from a copy cut to what a list shows: its missing fields would read as empty.
        guard let entity = (try? environment.cache.fullEntity(key)) ?? entity, entity.isComplete else { return nil }
        return EditFormController(environment: environment, entity: entity, breadcrumb: breadcrumb, focusOn: property)
    }

    /// The whole value of one property, read whole from the cache (the rows hold it cut), wrapped.
    func fullValue(of property: String) -> TextViewController? {
        let full = (try? environment.cache.fullEntity(key)) ?? entity
        guard let value = full?[property] else { return nil }
        return TextViewController(
            environment: environment, text: Self.fullText(of: value), breadcrumb: property, kindTitle: "Value"
        )
    }

    /// A value as text for reading in full: members and elements one per line.
    static func fullText(of value: ODataValue) -> String {
        switch value {
        case .complex where GeoShape(value) != nil:
            // (the place read, then the GeoJSON the service sent)
            return ValueFormatter.format(value) + "\n\n" + PlainJSON.value(value)
        case .complex(let members):
            return members.map { $0.name + ": " + ValueFormatter.format($0.value) }.joined(separator: "\n")
        case .collection(let elements):
            return elements.map { ValueFormatter.format($0) }.joined(separator: "\n")
        default:
            return ValueFormatter.format(value)
        }
    }

    public func layout(rows: Int, columns: Int) {
        cursor.setPageSize(rows)
    }

    public func render(into buffer: inout ScreenBuffer, rows: Range<Int>) {
        guard !rows.isEmpty else { return }
        guard entity != nil || !navigations.isEmpty else {
            buffer.put(
                loaded ? "(not found)" : "loading…", row: rows.lowerBound, column: 1, style: CellStyle(role: .muted))
            return
        }
        let all = lines
        let labelWidth = min(24, max(8, (all.map { DisplayWidth.width(of: $0.label) }.max() ?? 8) + 1))
        for (offset, index) in cursor.visible.enumerated() {
            let line = rows.lowerBound + offset
            SelectionGutter.draw(selected: index == cursor.selected, line: line, into: &buffer)
            let item = all[index]
            if item.isHeading {
                buffer.put(item.label, row: line, column: SelectionGutter.width, style: CellStyle(.bold, role: .title))
                continue
            }
            let labelStyle = CellStyle(role: item.navigation == nil && item.hop == nil ? .header : .accent)
            let next = buffer.put(
                item.label, row: line, column: SelectionGutter.width, width: labelWidth, style: labelStyle)
            let room = max(0, buffer.size.columns - next - 1)
            if let shown = item.criticality {
                let marked = item.marksCriticality && !item.value.isEmpty ? shown.mark + " " + item.value : item.value
                buffer.put(marked, row: line, column: next + 1, width: room, style: shown.style)
            } else {
                buffer.put(item.value, row: line, column: next + 1, width: room)
            }
        }
        if entity == nil, !loaded, let line = Optional(rows.lowerBound + cursor.visible.count), line < rows.upperBound {
            buffer.put("loading…", row: line, column: 1, style: CellStyle(role: .muted))
        }
    }

    public var statusSummary: String {
        let partial = entity.map { $0.isComplete ? nil : "fetching the rest of this record" } ?? nil
        return [key.canonical, partial ?? environment.age(of: entity?.fetchedAt)].compactMap { $0 }
            .joined(separator: " · ")
    }
}
