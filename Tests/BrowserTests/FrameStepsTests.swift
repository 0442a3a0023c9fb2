import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// A frame is layout, then update (reads, intents), then render, which only draws.
@MainActor
@Suite struct FrameStepsTests {
    func makeApp(_ cache: CacheDatabase, intents: RecordingIntents) throws -> (BrowserApp, HeadlessTerminal) {
        let environment = BrowserEnvironment(
            cache: cache, intents: intents, model: CarDealerModel.model,
            profile: DisplayProfile.carDealer!)
        return BrowserApp.presented(environment, size: TerminalSize(columns: 60, rows: 12), present: false)
    }

    @Test func rendering_at_another_size_draws_but_neither_announces_nor_changes_the_screen() throws {
        // Given a people list presented at 12 rows
        let cache = try temporaryCache()
        let intents = RecordingIntents()
        let (app, _) = try makeApp(cache, intents: intents)
        app.presentIfNeeded()
        let announced = intents.shown.count
        let list = try #require(app.stack.top as? EntityListController)
        let pageSize = list.cursor.pageSize
        // When frames are rendered for other sizes without their layout step
        for rows in [5, 30, 60] {
            _ = app.render(size: TerminalSize(columns: 80, rows: rows))
        }
        // Then the fetcher heard nothing new and the list kept its page size
        #expect(intents.shown.count == announced)
        #expect(list.cursor.pageSize == pageSize)
    }

    @Test func a_resize_is_laid_out_and_announced_before_the_frame_is_drawn() throws {
        // Given a people list presented at 12 rows (10 content lines: a header and 9 rows)
        let cache = try temporaryCache()
        let intents = RecordingIntents()
        let (app, terminal) = try makeApp(cache, intents: intents)
        app.presentIfNeeded()
        #expect(intents.shown.last?.1 == 0..<9)
        // When the terminal grows to 30 rows
        terminal.resize(to: TerminalSize(columns: 60, rows: 30))
        _ = app.handle(terminal.readKeys().map { .key($0) })
        // Then the fetcher is told about the 27 rows the frame shows, once
        #expect(intents.shown.last?.1 == 0..<27)
        #expect(intents.shown.filter { $0.1 == 0..<27 }.count == 1)
    }

    @Test func requests_in_flight_show_only_once_they_have_been_out_a_while() async throws {
        // Given a people list
        let cache = try temporaryCache()
        let (app, _) = try makeApp(cache, intents: RecordingIntents())
        app.presentIfNeeded()
        // (the cache's own status, which says nothing is in flight, is kept out of it)
        app.statusObservation?.cancel()
        let size = TerminalSize(columns: 60, rows: 12)
        func statusLine() -> String { app.render(size: size).lines.last ?? "" }
        // When a request goes out and answers at once, the status line never mentions it
        app.statusChanged(SyncStatus(inFlight: 1))
        #expect(!statusLine().contains("request"))
        app.statusChanged(SyncStatus(inFlight: 0))
        #expect(!statusLine().contains("request"))
        // When one stays out past the delay, it shows, and goes when it answers
        app.statusChanged(SyncStatus(inFlight: 2))
        #expect(!statusLine().contains("request"))
        // (the delay's timer fires on the main queue, which other tests' main-actor work may hold for seconds: the
        // bound only keeps a broken timer from waiting forever)
        #expect(try await eventually(seconds: 60) { statusLine().contains("2 requests") }, "\(statusLine())")
        app.statusChanged(SyncStatus(inFlight: 0))
        #expect(!statusLine().contains("request"))
    }
}
