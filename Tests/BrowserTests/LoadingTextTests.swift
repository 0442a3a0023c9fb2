import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// No blank waits (issue 15): a list still loading says how much has arrived since it was asked for.
@MainActor
@Suite struct LoadingTextTests {
    final class Counter { var bytes = 5000 }

    @Test func a_loading_list_counts_the_bytes_arrived_since_it_was_drawn() throws {
        let cache = try temporaryCache()
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), model: CarDealerModel.model,
            profile: DisplayProfile.carDealer!)
        let counter = Counter()
        environment.bytesArrived = { counter.bytes }
        let (app, terminal) = BrowserApp.presented(environment, size: TerminalSize(columns: 60, rows: 8))
        // What arrived before the list was drawn ($metadata) is not the list's
        #expect(terminal.lastFrame[2].trimmingCharacters(in: .whitespaces) == "loading…", "\(terminal.lastFrame)")
        counter.bytes += 2048
        app.setNeedsDisplay()
        app.presentIfNeeded()
        #expect(terminal.lastFrame[2].contains("loading… 2.0 KB arrived"), "\(terminal.lastFrame)")
    }
}
