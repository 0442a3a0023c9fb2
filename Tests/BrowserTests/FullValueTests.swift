import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import Terminal
import Testing

@testable import Browser

/// Enter on a detail field or a logged request shows all of it, wrapped and sanitised.
@MainActor
@Suite struct FullValueTests {
    static let notes =
        "Customer reports a rattle from the front left wheel at speeds above 50 km/h, worse on cobbles.\n"
        + "\u{1B}[31mChecked\u{1B}[0m: ball joint worn. Replaced 👩🏽‍🚀 part 東京-42.\r\nDone."

    /// The seeded app with the detail screen of a maintenance record whose description is `text`.
    func detail(
        describedAs text: String, size: TerminalSize = TerminalSize(columns: 48, rows: 12)
    ) throws
        -> (BrowserApp, HeadlessTerminal)
    {
        let (app, terminal, cache) = try ScreenSnapshotTests().seededApp(size: size)
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: "Maintenance(11)", entitySet: "Maintenance", type: nil,
                properties: [
                    ODataProperty(name: "maintenanceID", value: .int(11)),
                    ODataProperty(name: "description", value: .string(text)),
                ], etag: nil, at: ScreenSnapshotTests.fixedNow, partial: false)
        }
        app.stack.push(
            EntityDetailController(
                environment: app.environment, key: EntityKey(entitySet: "Maintenance", value: .int(11)),
                breadcrumb: "Brakes"))
        app.presentIfNeeded()
        return (app, terminal)
    }

    @Test func enter_on_a_long_field_shows_it_whole_and_wrapped() throws {
        // Given the details of a record with a long, multi-line description holding an escape sequence
        let (app, terminal) = try detail(describedAs: Self.notes)
        #expect(!terminal.lastFrame.joined().contains("Done."))
        // When Enter is pressed on the description
        _ = app.handle([.key(.down), .key(.enter)])
        // Then every word shows, wrapped at spaces, one line per line of the value, the escape made harmless
        #expect(app.stack.top is TextViewController)
        let frame = terminal.lastFrame.joined(separator: "\n")
        #expect(frame.contains("Done."))
        #expect(!frame.contains("\u{1B}"))
        assertSnapshot(terminal.lastFrame, named: "full-value")
    }

    @Test func the_whole_view_of_a_huge_value_reads_it_whole_and_shows_its_beginning() throws {
        // Given the details of a record whose description is 3 MB (screens hold 4 KiB of it)
        let huge = String(repeating: "word ", count: 600_000)
        let (app, terminal) = try detail(describedAs: huge)
        // When Enter is pressed on the description and the view goes to its end
        _ = app.handle([.key(.down), .key(.enter), .key(.end)])
        // Then it wrapped the first MiB read whole from the cache, and says how much more there is
        let view = try #require(app.stack.top as? TextViewController)
        #expect(view.text.utf8.count == TextViewController.shownBytes)
        #expect(view.omittedBytes == huge.utf8.count - TextViewController.shownBytes)
        #expect(terminal.lastFrame.joined().contains("1.9 MB more not shown"))
    }

    @Test func enter_on_a_request_shows_everything_the_log_holds() throws {
        // Given a failed request with a long URL in the log
        let (app, terminal, cache) = try ScreenSnapshotTests().seededApp(size: TerminalSize(columns: 48, rows: 22))
        try cache.writeBlocking { session in
            _ = try session.appendRequestLog(
                RequestLogEntry(
                    url:
                        "http://127.0.0.1:8080/CarDealer.svc/Person(7)/PersonCar?$expand=Car,PersonCarMaintenance/Maintenance",
                    status: 400, bytes: 2_345, duration: 0.1234, outcome: .failed,
                    startedAt: ScreenSnapshotTests.fixedNow,
                    attempts: 3, error: "The service answered HTTP 400: \u{1B}]0;owned\u{7}Invalid $expand",
                    headers: "> If-None-Match: W/\"3\"\n< content-type: application/json"))
        }
        // When the request log opens and Enter is pressed on it
        _ = app.handle([.key(.char("i")), .key(.enter)])
        // Then the method, whole URL, status, timing, size, attempts, error and headers show, wrapped
        let frame = terminal.lastFrame.joined(separator: "\n")
        #expect(frame.contains("GET"))
        #expect(frame.contains("< content-type: application/json"))
        #expect(frame.contains("Maintenance"))
        #expect(frame.contains("Invalid $expand"))
        #expect(!frame.contains("\u{1B}"))
        assertSnapshot(terminal.lastFrame, named: "request-detail")
    }
}

@Suite struct TextWrapperTests {
    @Test func lines_break_at_spaces_and_never_exceed_the_width() {
        let lines = TextWrapper.wrap("the quick brown fox jumps over", width: 10)
        #expect(lines == ["the quick", "brown fox", "jumps over"])
    }

    @Test func a_word_longer_than_the_width_breaks_between_clusters_by_display_width() {
        // Wide clusters take two columns; an emoji ZWJ sequence is one cluster and never split (a skin-toned
        // astronaut advances a terminal's cursor by four columns: the tone is not combined, the rocket is)
        let lines = TextWrapper.wrap("東京東京👩🏽‍🚀ab", width: 5)
        #expect(lines == ["東京", "東京", "👩🏽‍🚀a", "b"])
        #expect(lines.allSatisfy { DisplayWidth.width(of: $0) <= 5 })
    }

    @Test func line_breaks_make_lines_and_controls_are_sanitised() {
        let lines = TextWrapper.wrap("a\r\nb\u{1B}[2Jc\n\nd\te", width: 20)
        #expect(lines == ["a", "b␛c", "", "d    e"])
    }
}
