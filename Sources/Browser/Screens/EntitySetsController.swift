import EntityCache
import ODataCore
import ScreenSeam
import Terminal

/// The root screen when no profile names one: every entity set of the service, filtered with `/` (a service
/// may have hundreds).
@MainActor
public final class EntitySetsController: ScreenController, FilterableScreen {
    public let screenID: ScreenID
    public let breadcrumb: String
    public let kindTitle = "Entity sets"
    public var takesText: Bool { filter.isEditing }

    public var statusSummary: String {
        let count = filter.isActive ? "\(shown.count) of \(sets.count) entity sets" : "\(sets.count) entity sets"
        let operations = environment.model.unboundOperations.count
        return operations == 0 ? count : count + " · ! \(operations) operation\(operations == 1 ? "" : "s")"
    }
    let environment: BrowserEnvironment
    let sets: [String]
    /// Indices into `sets` of those the filter lets through, in order.
    var shown: [Int]
    var filter = ListFilter()
    var cursor = ListCursor()

    public init(environment: BrowserEnvironment, serviceName: String) {
        self.environment = environment
        self.breadcrumb = serviceName
        self.screenID = environment.nextScreenID()
        // (singletons after the sets: each one entity, shown as it is read)
        sets = environment.model.entitySets.map(\.name) + environment.model.singletons.map(\.name)
        shown = Array(sets.indices)
        cursor.setCount(shown.count)
    }

    public func handle(_ key: Key) -> ScreenAction {
        if let action = handleFilterKey(key) { return action }
        if cursor.apply(key) {
            environment.setNeedsDisplay()
            return .handled
        }
        switch key {
        case .enter, .right, .char("l"):
            guard cursor.selected < shown.count else { return .handled }
            let name = sets[shown[cursor.selected]]
            if environment.model.entitySet(named: name)?.isSingleton == true {
                // A singleton: its one entity's screen, read at its name, with its navigations.
                return .push(
                    EntityDetailController(
                        environment: environment, key: EntityKey(singleton: name),
                        breadcrumb: environment.setProfile(name).title ?? name))
            }
            return .push(EntityListController(environment: environment, entitySet: name))
        case .char("!"):
            // What the service itself offers (issue 36).
            return .push(
                OperationsController(environment: environment, set: "", entity: nil, breadcrumb: "Operations"))
        default:
            return .ignored
        }
    }

    /// Keeps the sets whose name or title holds the text, ignoring case.
    func setFilter(_ text: String) {
        filter.text = text
        shown = sets.indices.filter { filter.matches(sets[$0] + " " + (environment.setProfile(sets[$0]).title ?? "")) }
        cursor.setCount(shown.count)
        environment.setNeedsDisplay()
    }

    public func layout(rows: Int, columns: Int) {
        cursor.setPageSize(rows - (filter.isEditing || filter.isActive ? 1 : 0))
    }

    public func render(into buffer: inout ScreenBuffer, rows: Range<Int>) {
        let filterRow = filter.isEditing || filter.isActive ? rows.upperBound - 1 : nil
        let listRows = rows.lowerBound..<(filterRow ?? rows.upperBound)
        for (offset, position) in cursor.visible.enumerated() where offset < listRows.count {
            let line = listRows.lowerBound + offset
            let name = sets[shown[position]]
            SelectionGutter.draw(selected: position == cursor.selected, line: line, into: &buffer)
            let title = environment.setProfile(name).title ?? name
            let one = environment.model.entitySet(named: name)?.isSingleton == true ? "  · one" : ""
            buffer.put(
                (title == name ? title : "\(title)  (\(name))") + one, row: line, column: SelectionGutter.width + 1)
        }
        if shown.isEmpty, filter.isActive, !listRows.isEmpty {
            buffer.put(
                "no entity set matches “\(filter.text)”", row: listRows.lowerBound, column: SelectionGutter.width + 1,
                style: CellStyle(role: .muted))
        }
        if let filterRow {
            let style = CellStyle(role: filter.isEditing ? .accent : .muted)
            buffer.fill(row: filterRow)
            let end = buffer.put("/" + filter.text, row: filterRow, column: 0, style: style)
            if filter.isEditing { buffer.put("▏", row: filterRow, column: end, style: style) }
        }
    }
}
