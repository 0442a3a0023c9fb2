import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// Every screen rendered headless from a known cache, compared with a text snapshot.
@MainActor
@Suite struct ScreenSnapshotTests {
    static let fixedNow = Date(timeIntervalSince1970: 1_800_000_000)

    /// Bob and Alice with their cars, the Explorer's service history, the People list as fetched.
    func seededApp(
        size: TerminalSize = TerminalSize(columns: 64, rows: 12), writes: (any WriteIntents)? = nil,
        cache seeded: CacheDatabase? = nil
    ) throws -> (BrowserApp, HeadlessTerminal, CacheDatabase) {
        if let seeded { return try app(on: seeded, size: size, writes: writes) }
        let cache = try temporaryCache()
        try seedPeople(
            cache,
            people: [
                (1, "Bob", "Samson", [(1, 2, "Ford", "Explorer"), (2, 5, "Ford", "Mustang")]),
                (2, "Zoë", "Ærøskøbing-Łódź", [(3, 7, "Škoda", "Octavia")]),
                (3, "Renée", "O'Neil", []),
            ], at: Self.fixedNow.addingTimeInterval(-42))
        try seedMaintenance(
            cache, link: 1,
            records: [
                (10, 1_136_419_200_000, "Oil change", 16_743, "36.46"),
                (11, 1_167_955_200_000, "Brake pads replaced, front and rear, rotors resurfaced", 30_655, "1316.5"),
            ], at: Self.fixedNow.addingTimeInterval(-7200))
        let people = ListRequest(
            entitySet: "Person", orderBy: [.init("lastName"), .init("firstName"), .init("personID")])
        try cache.writeBlocking { session in
            try session.writeListPage(
                people.key, offset: 0, entityKeys: ["Person(2)", "Person(3)", "Person(1)"], totalCount: 3,
                nextLink: nil, isLastPage: true, at: Self.fixedNow.addingTimeInterval(-42))
        }
        return try app(on: cache, size: size, writes: writes)
    }

    /// The People list on `cache`, presented once.
    func app(
        on cache: CacheDatabase, size: TerminalSize, writes: (any WriteIntents)?
    ) throws -> (BrowserApp, HeadlessTerminal, CacheDatabase) {
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), writes: writes, model: CarDealerModel.model,
            profile: DisplayProfile.carDealer!, now: { Self.fixedNow },
            timeZone: TimeZone(identifier: "UTC")!)
        let (app, terminal) = BrowserApp.presented(environment, size: size)
        return (app, terminal, cache)
    }

    @Test func people() throws {
        let (_, terminal, _) = try seededApp()
        assertSnapshot(terminal.lastFrame, named: "people")
    }

    @Test func a_persons_cars_through_personcar() throws {
        let (app, terminal, _) = try seededApp()
        _ = app.handle([.key(.down), .key(.down), .key(.enter)])
        assertSnapshot(terminal.lastFrame, named: "cars")
    }

    @Test func a_cars_maintenance() throws {
        let (app, terminal, _) = try seededApp()
        _ = app.handle([.key(.end), .key(.enter), .key(.enter)])
        assertSnapshot(terminal.lastFrame, named: "maintenance")
    }

    @Test func a_maintenance_records_detail() throws {
        let (app, terminal, _) = try seededApp()
        // The brake job, first: the profile orders service records latest first.
        _ = app.handle([.key(.end), .key(.enter), .key(.enter), .key(.enter)])
        assertSnapshot(terminal.lastFrame, named: "maintenance-detail")
    }

    @Test func a_person_with_no_cars() throws {
        let (app, terminal, _) = try seededApp()
        _ = app.handle([.key(.down), .key(.enter)])
        assertSnapshot(terminal.lastFrame, named: "no-cars")
    }

    @Test func filtering_people_locally() throws {
        let (app, terminal, _) = try seededApp()
        _ = app.handle([.key(.char("/")), .key(.char("o")), .key(.char("n"))])
        assertSnapshot(terminal.lastFrame, named: "people-filtered")
    }

    @Test func help() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 64, rows: 16))
        _ = app.handle([.key(.char("?"))])
        assertSnapshot(terminal.lastFrame, named: "help")
    }

    @Test func an_empty_request_log() throws {
        let (app, terminal, _) = try seededApp()
        _ = app.handle([.key(.char("i"))])
        assertSnapshot(terminal.lastFrame, named: "request-log-empty")
    }

    @Test func the_request_log_shows_the_latest_request_first() throws {
        // Given three requests logged in order
        let (app, terminal, cache) = try seededApp(size: TerminalSize(columns: 100, rows: 12))
        try cache.writeBlocking { session in
            for (offset, path) in ["first", "second", "third"].enumerated() {
                _ = try session.appendRequestLog(
                    RequestLogEntry(
                        url: "http://127.0.0.1/svc/\(path)", status: 200, bytes: 10, duration: 0.01, outcome: .fetched,
                        startedAt: Self.fixedNow.addingTimeInterval(Double(offset)), attempts: 1))
            }
        }
        // When the request log screen opens
        _ = app.handle([.key(.char("i"))])
        // Then the rows read third, second, first, and the cursor is on the latest
        let rows = terminal.lastFrame.filter { $0.contains("/svc/") }
        #expect(rows.map { $0.contains("/svc/third") } == [true, false, false], "\(rows)")
        #expect(rows.last?.contains("/svc/first") == true)
    }

    @Test func a_tiny_terminal_says_so() throws {
        let (_, terminal, _) = try seededApp(size: TerminalSize(columns: 12, rows: 3))
        assertSnapshot(terminal.lastFrame, named: "tiny")
    }

    @Test func a_narrow_terminal_cuts_columns_and_breadcrumbs() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 30, rows: 8))
        _ = app.handle([.key(.end), .key(.enter), .key(.enter)])
        assertSnapshot(terminal.lastFrame, named: "narrow-maintenance")
    }
}
