import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import Terminal
import Testing

@testable import Browser

@MainActor
@Suite struct DrillDownTests {
    func makeApp(
        _ cache: CacheDatabase, intents: RecordingIntents = RecordingIntents(),
        size: TerminalSize = TerminalSize(columns: 60, rows: 10)
    )
        throws -> (BrowserApp, HeadlessTerminal)
    {
        let environment = BrowserEnvironment(
            cache: cache, intents: intents, model: CarDealerModel.model,
            profile: DisplayProfile.carDealer!)
        let root = EntityListController(
            environment: environment,
            source: .related(parent: EntityKey(entitySet: "Person", value: .int(1)), path: ["PersonCar", "Car"]),
            breadcrumb: "Samson, Bob", kindTitle: "Cars")
        return BrowserApp.presented(environment, size: size, root: root, present: false)
    }

    @Test func a_relation_fetched_after_the_screen_opened_replaces_loading() async throws {
        // Given a cars screen whose relation is not cached yet
        let cache = try temporaryCache()
        let (app, terminal) = try makeApp(cache)
        app.presentIfNeeded()
        #expect(terminal.lastFrame.joined(separator: "\n").contains("loading…"))

        // When the fetcher writes the person's cars
        try seedPeople(cache, people: [(1, "Bob", "Samson", [(1, 2, "Ford", "Explorer"), (2, 5, "Ford", "Mustang")])])

        // Then the screen shows them without any key being pressed
        let shown = try await eventually { terminal.lastFrame.joined(separator: "\n").contains("Mustang") }
        #expect(shown, "frame was:\n\(terminal.lastFrame.joined(separator: "\n"))")
    }
}

extension DrillDownTests {
    @Test func maintenance_fetched_after_drilling_in_replaces_loading() async throws {
        // Given a cached cars screen, drilled into a car whose history is not cached yet
        let cache = try temporaryCache()
        try seedPeople(cache, people: [(1, "Bob", "Samson", [(1, 2, "Ford", "Explorer"), (2, 5, "Ford", "Mustang")])])
        let (app, terminal) = try makeApp(cache)
        app.presentIfNeeded()
        #expect(app.handle([.key(.enter)]))
        #expect(terminal.lastFrame[0].contains("Ford Explorer"))
        #expect(terminal.lastFrame.joined(separator: "\n").contains("loading…"))

        // When the fetcher writes its service history
        try seedMaintenance(cache, link: 1, records: [(7, 1_136_419_200_000, "Oil change", 16_743, "36.46")])

        // Then it shows without any key being pressed
        let shown = try await eventually { terminal.lastFrame.joined(separator: "\n").contains("Oil change") }
        #expect(shown, "frame was:\n\(terminal.lastFrame.joined(separator: "\n"))")
    }
}

extension DrillDownTests {
    @Test func the_row_under_the_cursor_when_data_arrives_gets_its_rest_prefetch() async throws {
        // Given a cars screen opened before its rows are cached, the cursor on the first row
        let cache = try temporaryCache()
        let intents = RecordingIntents()
        let (app, _) = try makeApp(cache, intents: intents)
        app.presentIfNeeded()
        let screen = try #require(app.stack.top as? EntityListController)
        #expect(try await eventually { screen.told.restWork == nil }, "the appear-time rest never ran")
        #expect(intents.rested.isEmpty)

        // When the rows arrive and nobody touches a key
        try seedPeople(cache, people: [(1, "Bob", "Samson", [(1, 2, "Ford", "Explorer"), (2, 5, "Ford", "Mustang")])])

        // Then the fetcher hears that the cursor rests on the first row's link entity
        let told = try await eventually { intents.rested.contains(EntityKey(entitySet: "PersonCar", value: .int(1))) }
        #expect(told, "rested: \(intents.rested)")
    }
}

extension DrillDownTests {
    @Test func a_resting_cursor_asks_ahead_in_the_direction_it_travels() async throws {
        // Given a person's five cars on screen, the cursor on the first
        let cache = try temporaryCache()
        try seedPeople(
            cache, people: [(1, "Bob", "Samson", (1...5).map { (link: $0, car: $0, make: "Ford", model: "M\($0)") })])
        let intents = RecordingIntents()
        let (app, _) = try makeApp(cache, intents: intents, size: TerminalSize(columns: 60, rows: 12))
        app.presentIfNeeded()
        let link = { (id: Int) in EntityKey(entitySet: "PersonCar", value: .int(Int64(id))) }
        func rest() async throws -> (EntityKey?, [EntityKey]?) {
            let before = intents.rested.count
            #expect(try await eventually { intents.rested.count > before }, "no rest after \(intents.rested)")
            return (intents.rested.last, intents.neighbours.last)
        }
        // The first rest asks for the row below (there is none above)
        var (rested, neighbours) = try await rest()
        #expect(rested == link(1) && neighbours == [link(2)], "\(String(describing: rested)) \(intents.neighbours)")

        // When the cursor comes down two rows, then goes back up one
        _ = app.handle([.key(.down), .key(.down)])
        (rested, neighbours) = try await rest()

        // Then coming down asks for the row below only, and going up for the row above only
        #expect(rested == link(3) && neighbours == [link(4)], "\(intents.neighbours)")
        _ = app.handle([.key(.up)])
        (rested, neighbours) = try await rest()
        #expect(rested == link(2) && neighbours == [link(1)], "\(intents.neighbours)")
    }
}
