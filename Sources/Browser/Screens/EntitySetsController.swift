import EntityCache
import Terminal

/// The root screen when no profile names one: every entity set of the service.
@MainActor
public final class EntitySetsController: ScreenController {
    public let screenID: ScreenID
    public let breadcrumb: String
    public let kindTitle = "Entity sets"
    public var statusSummary: String { "\(sets.count) entity sets" }
    let environment: BrowserEnvironment
    let sets: [String]
    var cursor = ListCursor()

    public init(environment: BrowserEnvironment, serviceName: String) {
        self.environment = environment
        self.breadcrumb = serviceName
        self.screenID = environment.nextScreenID()
        sets = environment.model.entitySets.map(\.name)
        cursor.setCount(sets.count)
    }

    public func handle(_ key: Key) -> ScreenAction {
        if cursor.apply(key) {
            environment.setNeedsDisplay()
            return .handled
        }
        switch key {
        case .enter, .right, .char("l"):
            guard cursor.selected < sets.count else { return .handled }
            return .push(EntityListController(environment: environment, entitySet: sets[cursor.selected]))
        default:
            return .ignored
        }
    }

    public func render(into buffer: inout ScreenBuffer, rows: Range<Int>) {
        cursor.setPageSize(rows.count)
        for (offset, index) in cursor.visible.enumerated() {
            let line = rows.lowerBound + offset
            SelectionGutter.draw(selected: index == cursor.selected, line: line, into: &buffer)
            let title = environment.setProfile(sets[index]).title ?? sets[index]
            buffer.put(title == sets[index] ? title : "\(title)  (\(sets[index]))", row: line, column: SelectionGutter.width + 1)
        }
    }
}
