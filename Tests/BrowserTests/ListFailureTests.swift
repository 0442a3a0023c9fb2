import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// A list whose fetch failed says so where its rows would be, unlike a list that is empty.
@MainActor
@Suite struct ListFailureTests {
    static let people = ListRequest(
        entitySet: "Person", orderBy: [.init("lastName"), .init("firstName"), .init("personID")])
    static let refused =
        "The service answered HTTP 400 [Invalid.Filter]: The query option $filter is not valid here"
        + " (http://127.0.0.1:8080/CarDealer.svc/Person?$orderby=lastName,firstName,personID&$top=80)"

    func app(_ cache: CacheDatabase, size: TerminalSize) throws -> HeadlessTerminal {
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), model: CarDealerModel.model,
            profile: DisplayProfile.carDealer!, now: { ScreenSnapshotTests.fixedNow })
        let (_, terminal) = BrowserApp.presented(environment, size: size)
        return terminal
    }

    @Test func a_list_whose_request_failed_shows_why_and_how_to_retry() throws {
        // Given the People list's first request was refused with HTTP 400
        let cache = try temporaryCache()
        try cache.writeBlocking { try $0.setListError(Self.people.key, message: Self.refused) }
        // When the list is drawn
        let terminal = try app(cache, size: TerminalSize(columns: 64, rows: 12))
        // Then the list area says it failed, the whole reason wrapped, and that r retries — not “(none)”
        let frame = terminal.lastFrame.joined(separator: "\n")
        #expect(!frame.contains("(none)"))
        #expect(frame.contains("This list could not be loaded."))
        #expect(frame.contains("Press r to try again."))
        #expect(frame.contains("personID&$top=80)"))
        assertSnapshot(terminal.lastFrame, named: "people-failed")
    }

    @Test func a_related_list_whose_fetch_failed_shows_why_instead_of_loading_for_ever() async throws {
        // Given a person's cars screen whose relation was never fetched
        let cache = try temporaryCache()
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), model: CarDealerModel.model,
            profile: DisplayProfile.carDealer!, now: { ScreenSnapshotTests.fixedNow })
        let person = EntityKey(entitySet: "Person", value: .int(1))
        let cars = EntityListController(
            environment: environment, source: .related(parent: person, path: ["PersonCar", "Car"]),
            breadcrumb: "Cars", kindTitle: "Cars")
        let (app, terminal) = BrowserApp.presented(environment, size: TerminalSize(columns: 64, rows: 12), root: cars)
        #expect(terminal.lastFrame.joined().contains("loading…"))
        // When the fetcher records that the fetch of the person's PersonCar failed
        let refused = Self.refused
        try await cache.write { try $0.setFetchError(subject: "Person(1)/PersonCar", message: refused, at: Date()) }
        for _ in 0..<200 where !terminal.lastFrame.joined().contains("could not be loaded") {
            try await Task.sleep(for: .milliseconds(10))
            app.presentIfNeeded()
        }
        // Then the list says why and what to do, not loading…
        let frame = terminal.lastFrame.joined(separator: "\n")
        #expect(frame.contains("This list could not be loaded."), "\(frame)")
        #expect(frame.contains("Press r to try again."))
        #expect(!frame.contains("loading…"))
    }

    @Test func a_list_that_is_really_empty_still_says_none() throws {
        // Given the People list fetched with no rows
        let cache = try temporaryCache()
        try cache.writeBlocking { session in
            try session.writeListPage(
                Self.people.key, offset: 0, entityKeys: [], totalCount: 0, nextLink: nil,
                isLastPage: true, at: ScreenSnapshotTests.fixedNow)
        }
        // When the list is drawn
        let terminal = try app(cache, size: TerminalSize(columns: 64, rows: 12))
        // Then it says none, with nothing about a failure
        let frame = terminal.lastFrame.joined(separator: "\n")
        #expect(frame.contains("(none)"))
        #expect(!frame.contains("could not be loaded"))
    }

    @Test func a_short_screen_keeps_the_advice_and_cuts_the_reason() throws {
        // Given a failed People list on a screen with four list rows
        let cache = try temporaryCache()
        try cache.writeBlocking { try $0.setListError(Self.people.key, message: Self.refused) }
        // When the list is drawn
        let terminal = try app(cache, size: TerminalSize(columns: 40, rows: 7))
        // Then the first line and the advice are both there
        let frame = terminal.lastFrame.joined(separator: "\n")
        #expect(frame.contains("This list could not be loaded."))
        #expect(frame.contains("Press r to try again."))
    }
}
