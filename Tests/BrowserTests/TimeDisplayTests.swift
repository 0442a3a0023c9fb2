import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import Terminal
import Testing

@testable import Browser

/// Times keep the offset they were written with; the user's own events show in local time.
@MainActor
@Suite struct TimeDisplayTests {
    @Test func a_date_time_offset_shows_its_wall_clock_and_its_offset() throws {
        // Given instants as a v2 server writes Edm.DateTimeOffset (the offset in minutes: -0720 is -12:00)
        let west = try #require(ODataInstant(wireDate: "/Date(1611572730000-0720)/"))
        let east = try #require(ODataInstant(wireDate: "/Date(1611572730000+0330)/"))
        let utc = try #require(ODataInstant(iso8601: "2021-01-25T11:05:30Z"))
        // When they are formatted, after a round trip through the cache's encoding
        let stored = PropertyCodec.decode(
            PropertyCodec.encode([
                .init(name: "w", value: .dateTimeOffset(west)), .init(name: "e", value: .dateTimeOffset(east)),
                .init(name: "u", value: .dateTimeOffset(utc)),
            ]))
        let shown = (stored ?? []).map { ValueFormatter.format($0.value) }
        // Then each shows the time it was written in, with that offset
        #expect(shown == ["2021-01-24 23:05 -12:00", "2021-01-25 16:35 +05:30", "2021-01-25 11:05 UTC"])
        // And a date-only format stays a date
        #expect(ValueFormatter.format(.dateTimeOffset(west), as: "date") == "2021-01-24")
        // And Edm.DateTime, which has no offset, is unchanged
        #expect(
            ValueFormatter.format(.dateTime(ODataInstant(millisecondsSince1970: 1_257_008_908_440)))
                == "2009-10-31 17:08")
    }

    @Test func the_request_log_shows_local_times() throws {
        // Given a request at 08:00 UTC, browsed from India (UTC+05:30)
        let cache = try temporaryCache()
        try cache.writeBlocking { session in
            _ = try session.appendRequestLog(
                RequestLogEntry(
                    url: "http://127.0.0.1/svc/Person", status: 200, bytes: 10, duration: 0.01, outcome: .fetched,
                    startedAt: ScreenSnapshotTests.fixedNow, attempts: 1))
        }
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), model: CarDealerModel.model,
            profile: DisplayProfile.carDealer!,
            now: { ScreenSnapshotTests.fixedNow }, timeZone: TimeZone(identifier: "Asia/Kolkata")!)
        let (app, terminal) = BrowserApp.presented(
            environment, size: TerminalSize(columns: 80, rows: 12), present: false)
        // When the request log opens, and then the request
        _ = app.handle([.key(.char("i"))])
        let row = terminal.lastFrame.first { $0.contains("/svc/Person") }
        _ = app.handle([.key(.enter)])
        // Then both say 13:30, the detail with its date and offset
        #expect(row?.contains("13:30:00") == true, "\(row ?? "no row")")
        #expect(
            terminal.lastFrame.contains { $0.contains("Started   2027-01-15 13:30:00 +05:30") }, "\(terminal.lastFrame)"
        )
    }
}
