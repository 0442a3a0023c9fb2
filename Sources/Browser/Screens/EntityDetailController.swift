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
    var entity: CachedEntity?
    var loaded = false
    var cursor = ListCursor()
    var observation: CacheObservation?

    /// Navigation properties of the entity's type, from `$metadata`.
    let navigations: [String]

    public init(environment: BrowserEnvironment, key: EntityKey, breadcrumb: String) {
        self.environment = environment
        self.key = key
        self.breadcrumb = breadcrumb
        self.screenID = environment.nextScreenID()
        let type = environment.model.entityType(ofSet: key.entitySet)
        navigations = type.map { environment.model.navigationProperties(of: $0).map(\.name) } ?? []
    }

    /// Lines: one per property, then one per navigation.
    /// A property shows under its `$metadata` label (`sap:label`, `Common.Label`) when the service gives one.
    var lines: [(label: String, value: String, navigation: String?, name: String)] {
        let declared = environment.model.entityType(ofSet: key.entitySet).map { environment.model.properties(of: $0) }
        var result: [(String, String, String?, String)] = (entity?.properties ?? []).map { property in
            let label = declared?.first { $0.name == property.name }?.label ?? property.name
            return (label, ValueFormatter.format(property.value), nil, property.name)
        }
        // A copy cut to what a list shows: the fields it lacks are on their way (the fetcher asks for the whole).
        if let entity, !entity.isComplete {
            let present = Set(entity.properties.map(\.name))
            for property in declared ?? [] where !present.contains(property.name) {
                result.append((property.label ?? property.name, "loading…", nil, property.name))
            }
        }
        result += navigations.map { ($0, "›", $0, $0) }
        return result
    }

    public func willAppear() {
        entity = try? environment.cache.entity(key)
        loaded = entity != nil
        cursor.setCount(lines.count)
        observation = environment.cache.observeEntity(key) { [weak self] entity in
            guard let self else { return }
            self.entity = entity
            self.loaded = true
            self.cursor.setCount(self.lines.count)
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
        if cursor.apply(key) {
            environment.setNeedsDisplay()
            return .handled
        }
        switch key {
        case .enter, .right, .char("l"):
            let all = lines
            guard cursor.selected < all.count else { return .handled }
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
                    // This screen already names the entity; the list names the navigation followed.
                    environment: environment, source: .related(parent: self.key, path: [navigation]),
                    breadcrumb: navigation, kindTitle: navigation
                ))
        case .char("v"):
            let all = lines
            guard cursor.selected < all.count, all[cursor.selected].navigation == nil else { return .handled }
            return fullValue(of: all[cursor.selected].name).map(ScreenAction.push) ?? .handled
        case .char("e"):
            return editForm(focusOn: nil).map(ScreenAction.push) ?? .handled
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
            let labelStyle = CellStyle(role: item.navigation == nil ? .header : .accent)
            let next = buffer.put(
                item.label, row: line, column: SelectionGutter.width, width: labelWidth, style: labelStyle)
            buffer.put(item.value, row: line, column: next + 1, width: max(0, buffer.size.columns - next - 1))
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
