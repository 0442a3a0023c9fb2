import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import Terminal
import Testing

@testable import Browser

/// A list filtered here holds all its rows; they must still follow the cache, as the unfiltered list does.
@MainActor
extension ScreenSnapshotTests {
    func rename(_ cache: CacheDatabase, person id: Int, first: String, last: String) throws {
        try cache.writeBlocking {
            try $0.upsertEntity(
                key: EntityKey(entitySet: "Person", value: .int(Int64(id))), entitySet: "Person", type: nil,
                properties: [
                    ODataProperty(name: "personID", value: .int(Int64(id))),
                    ODataProperty(name: "firstName", value: .string(first)),
                    ODataProperty(name: "lastName", value: .string(last)),
                ], etag: nil, at: Self.fixedNow, partial: true)
        }
    }

    func shown(_ terminal: HeadlessTerminal) -> String { terminal.lastFrame.joined(separator: "\n") }

    @Test func a_filtered_list_shows_a_row_changed_while_the_filter_is_on() async throws {
        // Given people filtered by "on" (Samson, O'Neil)
        let (app, terminal, cache) = try seededApp()
        _ = app.handle([.key(.char("/")), .key(.char("o")), .key(.char("n")), .key(.enter)])
        #expect(shown(terminal).contains("Samson, Bob"))

        // When Bob's name changes in the cache
        try rename(cache, person: 1, first: "Robert", last: "Samson")

        // Then the filtered list shows the new name
        #expect(try await eventually { self.shown(terminal).contains("Samson, Robert") }, "\(shown(terminal))")
    }

    @Test func a_filtered_list_reads_its_rows_again_after_another_screen() throws {
        // Given people filtered by "ne" (O'Neil), and Renée's cars opened over them
        let (app, terminal, cache) = try seededApp()
        _ = app.handle([.key(.char("/")), .key(.char("n")), .key(.char("e")), .key(.enter)])
        #expect(shown(terminal).contains("O'Neil, Renée"))
        _ = app.handle([.key(.enter)])
        #expect(!shown(terminal).contains("O'Neil, Renata"))

        // When her name changes while the other screen is on top, and the user comes back
        try rename(cache, person: 3, first: "Renata", last: "O'Neil")
        _ = app.handle([.key(.escape)])

        // Then the list shows it at once, still filtered
        #expect(shown(terminal).contains("O'Neil, Renata"), "\(shown(terminal))")
        #expect(!shown(terminal).contains("Ærøskøbing"))
    }

    @Test func clearing_the_filter_gives_back_a_list_that_follows_the_cache() async throws {
        let (app, terminal, cache) = try seededApp()
        _ = app.handle([.key(.char("/")), .key(.char("o")), .key(.char("n")), .key(.enter), .key(.escape)])
        #expect(shown(terminal).contains("Ærøskøbing"))

        try rename(cache, person: 2, first: "Zoe", last: "Aeroskobing")

        #expect(try await eventually { self.shown(terminal).contains("Aeroskobing, Zoe") }, "\(shown(terminal))")
    }
}
