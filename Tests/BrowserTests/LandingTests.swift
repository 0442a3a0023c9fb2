import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// A resting cursor names the row the screen Enter opens would put its cursor on.
@MainActor
@Suite struct LandingTests {
    nonisolated func link(_ id: Int) -> EntityKey { EntityKey(entitySet: "PersonCar", value: .int(Int64(id))) }
    nonisolated func person(_ id: Int) -> EntityKey { EntityKey(entitySet: "Person", value: .int(Int64(id))) }

    /// Cy (cars not known) cached, and the people list Ann, Bob, Cy.
    nonisolated func listPeople(_ cache: CacheDatabase) throws {
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: person(3), entitySet: "Person", type: nil,
                properties: [ODataProperty(name: "personID", value: .int(3))], etag: nil, at: Date(), partial: false)
            try session.writeListPage(
                ListRequest(entitySet: "Person", orderBy: [.init("lastName"), .init("firstName"), .init("personID")])
                    .key, offset: 0, entityKeys: [person(1), person(2), person(3)], totalCount: 3, nextLink: nil,
                isLastPage: true, at: Date())
        }
    }

    /// Ann's links list her Fiat before her BMWs (the profile orders cars by make, model, carID), Bob below her
    /// with one car, and Cy below him whose cars are not known: the People list on them, presented once.
    func peopleApp() throws -> (BrowserApp, RecordingIntents) {
        let cache = try temporaryCache()
        try seedPeople(
            cache,
            people: [
                (1, "Ann", "Adams", [(1, 3, "Fiat", "Panda"), (2, 4, "BMW", "320i"), (3, 5, "BMW", "118d")]),
                (2, "Bob", "Brown", [(4, 6, "Ford", "Ka")]),
            ])
        try listPeople(cache)
        let intents = RecordingIntents()
        let environment = BrowserEnvironment(
            cache: cache, intents: intents, model: CarDealerModel.model, profile: DisplayProfile.carDealer!)
        let (app, _) = BrowserApp.presented(environment, size: TerminalSize(columns: 60, rows: 10))
        return (app, intents)
    }

    /// The cursor rests on Ann, then (down) on Bob, then (down) on Cy.
    func restOnAnnBobAndCy(_ app: BrowserApp, _ intents: RecordingIntents) async throws {
        #expect(try await eventually { intents.rested.last == person(1) }, "rested: \(intents.rested)")
        _ = app.handle([.key(.down)])
        #expect(try await eventually { intents.rested.last == person(2) }, "rested: \(intents.rested)")
        _ = app.handle([.key(.down)])
        #expect(try await eventually { intents.rested.last == person(3) }, "rested: \(intents.rested)")
    }

    @Test func a_rested_person_names_the_first_car_in_the_order_the_cars_screen_shows() async throws {
        // Given Ann, Bob and Cy (``peopleApp()``)
        let (app, intents) = try peopleApp()

        // When the cursor rests on Ann, then on Bob, then on Cy
        try await restOnAnnBobAndCy(app, intents)

        // Then Ann's landing is her BMW 118d's link (not her first link), Bob's his Ford's, and Cy (cars not
        // known) has none; the neighbours are named without theirs
        #expect(intents.landings == [link(3), link(4), nil], "\(intents.landings)")
        #expect(intents.neighbours == [[person(2)], [person(3)], []], "\(intents.neighbours)")
    }

    @Test func the_landing_row_is_the_row_enter_puts_the_cursor_on() async throws {
        // Given Ann's cars, listed by their links in another order than the Cars screen shows them
        let (app, intents) = try peopleApp()
        #expect(try await eventually { intents.rested.last == person(1) }, "rested: \(intents.rested)")

        // When Enter opens her cars
        _ = app.handle([.key(.enter)])
        let cars = try #require(app.stack.top as? EntityListController)

        // Then the row under its cursor is the landing row the rest named
        let landing = try #require(intents.landings.first ?? nil)
        #expect(cars.row(at: cars.cursor.selected)?.anchor?.key == landing)
    }

    @Test func a_landing_not_known_at_one_rest_is_named_at_a_rest_after_the_cache_learnt_it() async throws {
        // Given the cursor rested on Ann, Bob, then Cy, whose cars are not known
        let (app, intents) = try peopleApp()
        try await restOnAnnBobAndCy(app, intents)

        // When Cy's one car arrives in the cache, and the cursor goes up to Bob and back down to Cy
        try seedPeople(app.environment.testCache, people: [(3, "Cy", "Cole", [(5, 7, "Audi", "A2")])])
        _ = app.handle([.key(.up)])
        #expect(try await eventually { intents.rested.count == 4 }, "rested: \(intents.rested)")
        _ = app.handle([.key(.down)])
        #expect(try await eventually { intents.rested.count == 5 }, "rested: \(intents.rested)")

        // Then Bob's landing is his Ford's again, and Cy's is now his Audi's link
        #expect(intents.landings == [link(3), link(4), nil, link(4), link(5)], "\(intents.landings)")
    }
}
