import Browser
import CarDealerTestSupport
import DemoServer
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import Session
import Sync
import Terminal
import Testing

/// The browser on the real stack — built-in service with 300 ms latency, AsyncHTTPClient transport,
/// SyncEngine, a SQLite file — drawn on the headless terminal, so that "the next frame" is
/// exactly the frame `BrowserApp.handle` presents. Once per dialect: the service's v2 root and its v4 root.
@MainActor
@Suite(.serialized) struct PrefetchedDrillDownTests {
    @Test(arguments: ODataDialect.allCases)
    func after_the_people_list_settles_every_visible_person_opens_with_cars_in_the_next_frame_and_no_request(
        dialect: ODataDialect
    ) async throws {
        // Given the built-in service answering 300 ms late, and the browser showing People
        let directory = NSTemporaryDirectory() + "prefetch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(dataPath: directory + "/demo.sqlite", latencyMilliseconds: 300))
        var settings = SessionSettings(serviceRoot: dialect == .v4 ? server.version4URL : server.baseURL)
        settings.profile = DisplayProfile.carDealer
        settings.cacheFile = directory + "/cache.sqlite"
        let session = try await BrowsingSession.start(settings)
        #expect(session.model.dialect == dialect)
        let (cache, engine) = (session.cache, session.engine)
        let environment = session.makeEnvironment()
        let terminal = HeadlessTerminal(size: TerminalSize(columns: 80, rows: 24))
        let app = BrowserApp(
            terminal: terminal, environment: environment, root: session.makeRootController(in: environment))
        app.presentIfNeeded()

        // When the first page and its prefetches have settled
        await engine.waitUntilIdle()
        let settled = try await eventually {
            !terminal.lastFrame.joined().contains("loading…") && terminal.lastFrame[2].contains(",")
        }
        #expect(settled, "people never settled:\n\(terminal.lastFrame.joined(separator: "\n"))")
        // (the cursor's resting prefetch is announced after a pause, and may still be on the wire)
        try await Task.sleep(for: .milliseconds(600))
        await engine.waitUntilIdle()
        let requestsBefore = try cache.requestLog(limit: 10_000).count

        // Then Enter on each visible person draws their cars (or "(none)") in the very next frame
        for row in 0..<21 {
            let person = terminal.lastFrame[2 + row]
            #expect(app.handle([.key(.enter)]))
            let frame = terminal.lastFrame.joined(separator: "\n")
            #expect(frame.contains("People › "), "row \(row) did not open")
            #expect(!frame.contains("loading…"), "\(person) opened with rows still loading:\n\(frame)")
            #expect(app.handle([.key(.escape), .key(.down)]))
        }

        // And browsing the cached people asked the server for nothing
        let requestsAfter = try cache.requestLog(limit: 10_000)
        let drillRequests = requestsAfter.dropFirst(requestsBefore).filter {
            $0.url.contains("Person(") && $0.url.contains("/PersonCar")
        }
        #expect(drillRequests.isEmpty, "drilling fetched: \(drillRequests.map(\.url))")
        app.shutdown()
        await server.stop()
    }
}
