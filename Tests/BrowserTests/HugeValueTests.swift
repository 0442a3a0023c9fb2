import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// A server may send one enormous value; screens must draw what fits, not measure all of it per frame.
@MainActor
@Suite struct HugeValueTests {
    @Test func a_huge_value_reaches_the_screens_cut_to_what_they_can_show() throws {
        // Given a person whose last name is 5 MB of non-ASCII text, first in the People list
        let cache = try temporaryCache()
        let huge = String(repeating: "Łódź ", count: 1_000_000)
        let people = ListRequest(
            entitySet: "Person", orderBy: [.init("lastName"), .init("firstName"), .init("personID")])
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: "Person(1)", entitySet: "Person", type: nil,
                properties: [
                    ODataProperty(name: "personID", value: .int(1)),
                    ODataProperty(name: "firstName", value: .string("Ann")),
                    ODataProperty(name: "lastName", value: .string(huge)),
                ], etag: nil, at: Date(), partial: false)
            try session.writeListPage(
                people.key, offset: 0, entityKeys: ["Person(1)"], totalCount: 1, nextLink: nil,
                isLastPage: true, at: Date())
        }
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), model: CarDealerModel.model,
            profile: DisplayProfile.carDealer!)
        let (app, terminal) = BrowserApp.presented(environment, size: TerminalSize(columns: 60, rows: 10))

        // When the list is drawn and the details of that person open
        #expect(terminal.lastFrame[2].contains("Łódź Łódź"))
        _ = app.handle([.key(.char("d"))])

        // Then the detail screen holds a few KiB of the name, not 5 MB, and draws its beginning
        let detail = try #require(app.stack.top as? EntityDetailController)
        guard case .string(let shown)? = detail.entity?["lastName"] else {
            Issue.record("no last name on the detail screen")
            return
        }
        #expect(shown.utf8.count < 8192, "the detail screen read \(shown.utf8.count) bytes")
        #expect(huge.hasPrefix(shown.dropLast()) && shown.hasSuffix("…"))
        #expect(terminal.lastFrame.contains { $0.contains("Last name") && $0.contains("Łódź Łódź") })
        #expect(terminal.lastFrame[0].contains("Łódź"))
    }
}
