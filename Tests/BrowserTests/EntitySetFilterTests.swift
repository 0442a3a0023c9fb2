import CarDealerTestSupport
import EntityCache
import Foundation
import Terminal
import Testing

@testable import Browser

/// Issue 11, item 9: `/` on the list of entity sets did nothing; services with hundreds of sets need it.
@MainActor @Suite struct EntitySetFilterTests {
    @Test func slash_filters_the_entity_sets_and_enter_opens_the_one_under_the_cursor() throws {
        // Given the list of entity sets of the CarDealer service, without a profile
        let environment = BrowserEnvironment(
            cache: try temporaryCache(), intents: RecordingIntents(),
            model: CarDealerModel.model, profile: DisplayProfile(root: nil, sets: [:]))
        let sets = EntitySetsController(environment: environment, serviceName: "CarDealer")
        let (app, terminal) = BrowserApp.presented(environment, size: TerminalSize(columns: 60, rows: 12), root: sets)
        #expect(terminal.lastFrame.joined(separator: "\n").contains("Maintenance"))
        // When "/main" is typed ("q" among the letters would quit outside the filter)
        _ = app.handle([.key(.char("/")), .key(.char("m")), .key(.char("a")), .key(.char("i")), .key(.char("n"))])
        // Then only the sets holding it are listed, the filter shows on the last list row, and q types
        let frame = terminal.lastFrame.joined(separator: "\n")
        #expect(sets.shown.map { sets.sets[$0] }.allSatisfy { $0.lowercased().contains("main") })
        #expect(!sets.shown.isEmpty)
        #expect(!frame.contains("PersonCar\n") && !frame.contains(" Person\n"))
        #expect(frame.contains("/main"))
        #expect(app.handle([.key(.char("q")), .key(.backspace)]))
        // When the filter is closed with Enter and Enter opens the row under the cursor
        _ = app.handle([.key(.enter), .key(.enter)])
        let list = try #require(app.stack.top as? EntityListController)
        #expect(list.shownSet?.lowercased().contains("main") == true)
        // And back on the sets, Esc clears the filter
        _ = app.handle([.key(.escape), .key(.escape)])
        #expect(sets.shown.count == sets.sets.count)
    }

    /// Issue 36: what the service itself offers is one key away from its first screen.
    @Test func bang_on_the_entity_sets_lists_the_services_own_operations() throws {
        let environment = BrowserEnvironment(
            cache: try temporaryCache(), intents: RecordingIntents(),
            model: CarDealerModel.model, profile: DisplayProfile(root: nil, sets: [:]))
        let (app, terminal) = BrowserApp.presented(
            environment, size: TerminalSize(columns: 70, rows: 12),
            root: EntitySetsController(environment: environment, serviceName: "CarDealer"))
        #expect(terminal.lastFrame.last?.contains("! 1 operation") == true, "\(terminal.lastFrame.last ?? "")")
        _ = app.handle([.key(.char("!"))])
        let menu = terminal.lastFrame.joined(separator: "\n")
        #expect(menu.contains("Of the service") && menu.contains("Cars built before"), "\(menu)")
    }
}
