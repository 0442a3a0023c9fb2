import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// `:export` of a list not wholly cached (issue 15): the rest is asked of the fetcher under the export's own
/// identity, the progress shows on the filter line, the file is written once the last row is in; Esc cancels.
@MainActor
@Suite struct ListExportTests {
    let people = ListRequest(entitySet: "Person", orderBy: [.init("lastName"), .init("firstName"), .init("personID")])

    /// Eight people in the cache, the list's first three positions stored of eight.
    func app() throws -> (BrowserApp, HeadlessTerminal, CacheDatabase, RecordingIntents) {
        let cache = try temporaryCache()
        try seedPeople(cache, people: (1...8).map { ($0, "First\($0)", "Last\($0)", []) })
        try cache.writeBlocking { session in
            try session.writeListPage(
                people.key, offset: 0, entityKeys: ["Person(1)", "Person(2)", "Person(3)"], totalCount: 8,
                nextLink: nil, isLastPage: false, at: Date())
        }
        let intents = RecordingIntents()
        let environment = BrowserEnvironment(
            cache: cache, intents: intents, model: CarDealerModel.model, profile: DisplayProfile.carDealer!)
        let (app, terminal) = BrowserApp.presented(environment, size: TerminalSize(columns: 100, rows: 16))
        return (app, terminal, cache, intents)
    }

    func command(_ app: BrowserApp, _ text: String) {
        _ = app.handle([.key(.char(":"))] + text.map { .key(.char($0)) } + [.key(.enter)])
    }

    func directory() throws -> String {
        let path = NSTemporaryDirectory() + "list-export-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func the_rows_not_cached_are_fetched_and_then_the_file_is_written() async throws {
        let (app, terminal, cache, intents) = try app()
        let folder = try directory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let list = try #require(app.stack.top as? EntityListController)
        command(app, "export \(folder)/people.csv")
        // The fetcher is asked for the rows from the first missing one, under an identity that is not the list's
        let asked = try #require(intents.shown.last)
        #expect(asked.0 == .list(people) && asked.1.lowerBound == 3 && asked.2 != list.screenID, "\(asked)")
        let frame = terminal.lastFrame.joined(separator: "\n")
        #expect(frame.contains("Exporting 3 of 8 rows [") && frame.contains("Esc cancels · to "), "\(frame)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/people.csv"), "written before the rows were in")
        // When the fetcher stores the rest
        try await cache.write { session in
            try session.writeListPage(
                people.key, offset: 3, entityKeys: (4...8).map { EntityKey(stringLiteral: "Person(\($0))") },
                totalCount: 8, nextLink: nil, isLastPage: true, at: Date())
        }
        // Then the file holds every row and the status says so; the export's fetches are closed
        #expect(
            try await eventually { terminal.lastFrame.last?.contains("Wrote 8 Person to") == true },
            "\(terminal.lastFrame.last ?? "")")
        let csv = try String(contentsOfFile: folder + "/people.csv", encoding: .utf8)
        let lines = csv.split(separator: "\r\n")
        #expect(lines.count == 9 && lines[0].hasPrefix("personID,"), "\(csv)")
        #expect(lines.last?.contains("Last8") == true)
        #expect(intents.closed.contains(asked.2))
        #expect(!terminal.lastFrame.joined().contains("Exporting"))
    }

    @Test func esc_cancels_and_writes_nothing() async throws {
        let (app, terminal, cache, intents) = try app()
        let folder = try directory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        command(app, "export \(folder)/people.json")
        let asked = try #require(intents.shown.last)
        _ = app.handle([.key(.escape)])
        #expect(intents.closed.contains(asked.2))
        #expect(terminal.lastFrame.last?.contains("Export cancelled; nothing written") == true)
        // The list is still there (Esc stopped the export, it did not go back), and rows arriving write nothing
        #expect(app.stack.controllers.count == 1)
        try await cache.write { session in
            try session.writeListPage(
                people.key, offset: 3, entityKeys: (4...8).map { EntityKey(stringLiteral: "Person(\($0))") },
                totalCount: 8, nextLink: nil, isLastPage: true, at: Date())
        }
        #expect(try await eventually { terminal.lastFrame.joined().contains("Last8") })
        #expect(!FileManager.default.fileExists(atPath: folder + "/people.json"))
    }
}
