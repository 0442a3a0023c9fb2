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
