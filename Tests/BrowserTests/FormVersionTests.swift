import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// A change is made against the version the form showed: a newer copy fetched while the form is open (someone
/// else's change) must make the write a conflict, not overwrite it silently.
@MainActor
@Suite struct FormVersionTests {
    @Test func a_copy_fetched_while_the_form_is_open_does_not_move_the_version_the_change_is_made_on() async throws {
        let writes = RecordingWrites()
        let (app, _, cache) = try ScreenSnapshotTests().seededApp(
            size: TerminalSize(columns: 80, rows: 16), writes: writes)
        let now = ScreenSnapshotTests.fixedNow
        let person: [ODataProperty] = [
            .init(name: "personID", value: .int(2)), .init(name: "firstName", value: .string("Zoë")),
            .init(name: "lastName", value: .string("Ærøskøbing-Łódź")),
        ]
        try await cache.write {
            try $0.upsertEntity(
                key: "Person(2)", entitySet: "Person", type: nil, properties: person, etag: "W/\"1\"", at: now,
                partial: false)
        }
        // Given the form open on the first person, version 1
        _ = app.handle([.key(.char("e"))])
        #expect(app.stack.top is EditFormController)
        // When a fetch brings version 2 (changed on the service meanwhile) and the form is saved
        try await cache.write {
            try $0.upsertEntity(
                key: "Person(2)", entitySet: "Person", type: nil, properties: person, etag: "W/\"2\"", at: now,
                partial: false)
        }
        _ = app.handle([.key(.ctrl("u"))] + "Zed".map { .key(.char($0)) } + [.key(.enter)])
        // Then the change is made against version 1, the one the form showed
        let change = try #require(writes.saved.first)
        #expect(change.baseEtag == "W/\"1\"")
    }
}
