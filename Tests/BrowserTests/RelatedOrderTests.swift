import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import Terminal
import Testing

@testable import Browser

/// A drilled list is read in link order; the screen shows it in the profile's order.
@MainActor
@Suite struct RelatedOrderTests {
    func app(_ cache: CacheDatabase, parent: EntityKey, path: [String]) throws -> (BrowserApp, HeadlessTerminal) {
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), model: CarDealerModel.model,
            profile: DisplayProfile.carDealer!)
        let root = EntityListController(
            environment: environment, source: .related(parent: parent, path: path),
            breadcrumb: "Smith, Ann", kindTitle: "Cars")
        return BrowserApp.presented(environment, size: TerminalSize(columns: 60, rows: 10), root: root)
    }

    @Test func a_persons_cars_follow_the_profiles_order_not_the_links() throws {
        // Given Ann's links list her Fiat before her BMW (the profile orders cars by make, model, carID)
        let cache = try temporaryCache()
        try seedPeople(
            cache,
            people: [(1, "Ann", "Smith", [(1, 3, "Fiat", "Panda"), (2, 4, "BMW", "320i"), (3, 5, "BMW", "118d")])])
        // When her cars are shown
        let (_, terminal) = try app(
            cache, parent: EntityKey(entitySet: "Person", value: .int(1)), path: ["PersonCar", "Car"])
        // Then BMW comes first, its two models in order, then Fiat
        let rows = terminal.lastFrame.filter { $0.contains("BMW") || $0.contains("Fiat") }
        #expect(rows.count == 3)
        #expect(rows.map { $0.contains("118d") } == [true, false, false], "\(rows)")
        #expect(rows.last?.contains("Fiat") == true)
    }

    @Test func a_cars_service_history_shows_the_latest_first() throws {
        // Given a car's maintenance linked oldest first (the profile says serviceDate desc)
        let cache = try temporaryCache()
        try seedMaintenance(
            cache, link: 1,
            records: [
                (10, 1_136_419_200_000, "Oil change", 16_743, "36.46"),
                (11, 1_167_955_200_000, "Brake pads", 30_655, "99"),
            ])
        // When the car's service records are shown
        let (_, terminal) = try app(
            cache, parent: EntityKey(entitySet: "PersonCar", value: .int(1)),
            path: ["PersonCarMaintenance", "Maintenance"])
        // Then the newer record is first
        let rows = terminal.lastFrame.filter { $0.contains("Oil change") || $0.contains("Brake pads") }
        #expect(rows.map { $0.contains("Brake pads") } == [true, false], "\(rows)")
    }

    @Test func nulls_come_first_and_ties_keep_their_link_order() {
        func row(_ position: Int, _ value: ODataValue) -> ListRow {
            ListRow(
                position: position,
                shown: CachedEntity(
                    key: "X(\(position))", entitySet: "X", type: nil, properties: [.init(name: "v", value: value)],
                    etag: nil,
                    fetchedAt: Date()), link: nil)
        }
        let rows = [row(0, .int(2)), row(1, .null), row(2, .int(1)), row(3, .int(2))]
        #expect(ProfileOrder(["v"]).sorted(rows).map { $0.shown?.key } == ["X(1)", "X(2)", "X(0)", "X(3)"])
        #expect(ProfileOrder(["v desc"]).sorted(rows).map { $0.shown?.key } == ["X(0)", "X(3)", "X(2)", "X(1)"])
        #expect(ProfileOrder([]).sorted(rows) == rows)
    }
}
