import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// `L` links an existing entity here: what is linked already is marked and not linked twice; a service that does
/// not let links be made is said so (issue 32, items 6 and 10). A pending row under the cursor keeps its mark.
@MainActor
@Suite struct LinkCandidatesTests {
    func frame(_ terminal: HeadlessTerminal) -> String { terminal.lastFrame.joined(separator: "\n") }

    /// Samson, Bob's cars on screen, every car (Explorer, Mustang, Octavia) in the cache's car list.
    func samsonsCars(model: ServiceModel? = nil) throws -> (BrowserApp, HeadlessTerminal, RecordingWrites) {
        let writes = RecordingWrites()
        var (app, terminal, cache) = try ScreenSnapshotTests().seededApp(
            size: TerminalSize(columns: 100, rows: 14), writes: writes)
        let cars = ListRequest(entitySet: "Car", orderBy: [.init("make"), .init("model"), .init("carID")])
        try cache.writeBlocking { session in
            try session.writeListPage(
                cars.key, offset: 0, entityKeys: ["Car(2)", "Car(5)", "Car(7)"], totalCount: 3, nextLink: nil,
                isLastPage: true, at: ScreenSnapshotTests.fixedNow)
        }
        if let model {
            let environment = BrowserEnvironment(
                cache: cache, intents: RecordingIntents(), writes: writes, model: model,
                profile: DisplayProfile.carDealer!, now: { ScreenSnapshotTests.fixedNow },
                timeZone: TimeZone(identifier: "UTC")!)
            (app, terminal) = BrowserApp.presented(environment, size: TerminalSize(columns: 100, rows: 14))
        }
        _ = app.handle([.key(.char("j")), .key(.char("j")), .key(.enter)])
        return (app, terminal, writes)
    }

    @Test func candidates_already_linked_are_marked_and_enter_on_one_links_nothing() throws {
        let (app, terminal, writes) = try samsonsCars()
        // When L is pressed in Samson, Bob's cars
        _ = app.handle([.key(.char("L"))])
        // Then his two cars are marked linked, the Škoda is not
        let rows = terminal.lastFrame.filter { $0.contains("Ford") || $0.contains("Škoda") }
        #expect(rows.count == 3, "\(frame(terminal))")
        #expect(rows.filter { $0.hasPrefix("✓") || $0.hasPrefix("▌") }.count == 2, "\(frame(terminal))")
        #expect(rows.first { $0.contains("Škoda") }?.hasPrefix(" ") == true, "\(frame(terminal))")
        // And the status line says so of the selected one (the Explorer, his)
        #expect(terminal.lastFrame.last?.contains("already one of Samson, Bob’s Cars") == true, "\(frame(terminal))")
        // When Enter is pressed on it, then nothing is linked and the list stays
        _ = app.handle([.key(.enter)])
        #expect(writes.linked.isEmpty)
        #expect(
            frame(terminal).contains("Nothing was linked: already one of Samson, Bob’s Cars."), "\(frame(terminal))")
        // When the Škoda is picked, then it is linked to him
        _ = app.handle([.key(.char("G")), .key(.enter)])
        #expect(writes.linked.map(\.target) == ["Car(7)"])
    }

    @Test func l_where_the_service_makes_no_new_links_says_so() throws {
        let model = CarDealerModel.model(changing: "PersonCar") { $0.isCreatable = false }
        let (app, terminal, writes) = try samsonsCars(model: model)
        _ = app.handle([.key(.char("L"))])
        #expect(frame(terminal).contains("The service does not let new PersonCar be made"), "\(frame(terminal))")
        #expect(app.stack.top is EntityListController && writes.linked.isEmpty)
        #expect(!frame(terminal).contains("Enter links it"))
    }

    @Test func a_pending_row_under_the_cursor_keeps_its_mark() async throws {
        let (app, terminal, cache) = try ScreenSnapshotTests().seededApp(size: TerminalSize(columns: 80, rows: 12))
        // When the first person, under the cursor, has a change on its way
        let now = ScreenSnapshotTests.fixedNow
        try await cache.write { session in
            _ = try session.enqueueUpdate(
                "Person(2)", changes: [.init(name: "firstName", value: .string("Zoe"))], requestID: "r", at: now)
        }
        // Then its gutter shows the pending mark, not the bare cursor (monochrome shows no colour on its text)
        let marked = try await eventually {
            _ = app.handle([])
            return terminal.lastFrame.contains { $0.hasPrefix("•") && $0.contains("Zoe") }
        }
        #expect(marked, "\(frame(terminal))")
    }
}
