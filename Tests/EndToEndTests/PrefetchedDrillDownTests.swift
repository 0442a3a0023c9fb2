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

@testable import Browser

/// The browser on the real stack — built-in service with 300 ms latency, AsyncHTTPClient transport,
/// SyncEngine, a SQLite file — drawn on the headless terminal, so that "the next frame" is
/// exactly the frame `BrowserApp.handle` presents. Once per dialect: the service's v2 root and its v4 root.
@MainActor
@Suite(.serialized) struct PrefetchedDrillDownTests {
    /// The built-in service answering `latency` ms late, and the browser on it in `dialect` with the CarDealer
    /// profile, drawn on a headless 80×24 terminal, People presented.
    @MainActor struct Stack {
        let directory = NSTemporaryDirectory() + "prefetch-\(UUID().uuidString)"
        let server: RunningDemoServer
        let session: BrowsingSession
        let terminal = HeadlessTerminal(size: TerminalSize(columns: 80, rows: 24))
        let app: BrowserApp

        init(_ dialect: ODataDialect, latency: Int) async throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            server = try await DemoServer.start(
                DemoServerConfiguration(dataPath: directory + "/demo.sqlite", latencyMilliseconds: latency))
            var settings = SessionSettings(serviceRoot: dialect == .v4 ? server.version4URL : server.baseURL)
            settings.profile = DisplayProfile.carDealer
            settings.cacheFile = directory + "/cache.sqlite"
            session = try await BrowsingSession.start(settings)
            let environment = session.makeEnvironment()
            app = BrowserApp(
                terminal: terminal, environment: environment, root: session.makeRootController(in: environment))
            app.presentIfNeeded()
        }

        func stop() async {
            app.shutdown()
            await server.stop()
        }

        func removeFiles() { try? FileManager.default.removeItem(atPath: directory) }
    }

    @Test(arguments: ODataDialect.allCases)
    func after_the_people_list_settles_every_visible_person_opens_with_cars_in_the_next_frame_and_no_request(
        dialect: ODataDialect
    ) async throws {
        // Given the built-in service answering 300 ms late, and the browser showing People
        let stack = try await Stack(dialect, latency: 300)
        defer { stack.removeFiles() }
        let (cache, engine, terminal, app) = (stack.session.cache, stack.session.engine, stack.terminal, stack.app)
        #expect(stack.session.model.dialect == dialect)

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
        await stack.stop()
    }

    @Test(arguments: ODataDialect.allCases)
    func e_on_a_car_prefetched_in_part_opens_its_form_at_once_and_the_rest_fills_in(
        dialect: ODataDialect
    ) async throws {
        // Given the built-in service, and the browser showing People with the first person's cars prefetched
        let stack = try await Stack(dialect, latency: 0)
        defer { stack.removeFiles() }
        let (cache, engine, terminal, app) = (stack.session.cache, stack.session.engine, stack.terminal, stack.app)
        await engine.waitUntilIdle()
        #expect(try await eventually { terminal.lastFrame[2].contains(",") })
        // The page asked for its cars cut to what the cars screen shows (make, model, year)
        let page = try #require(try cache.requestLog(limit: 100).first { $0.url.contains("Person?") }?.url)
        #expect(
            page.contains("$select=") && page.contains("manufactureDate") && !page.contains("createStamp"), "\(page)")

        // When the first person's cars open, and e is pressed on the first car
        #expect(app.handle([.key(.enter)]))
        let screen = try #require(app.stack.top as? EntityListController)
        let carKey = try #require(screen.row(at: 0)?.shown?.key)
        let cut = try #require(try cache.entity(carKey))
        #expect(!cut.isComplete && cut["createStamp"] == nil, "\(cut.properties.map(\.name))")
        #expect(app.handle([.key(.char("e"))]))

        // Then its form opens at once with what is known, the fields not loaded waiting and named, and they fill
        // in once the whole car has arrived
        let form = try #require(app.stack.top as? EditFormController, "\(type(of: app.stack.top))")
        #expect(form.notLoadedFields.contains("Changed"), "\(form.notLoadedFields)")  // (its label)
        #expect(terminal.lastFrame.last?.contains("not loaded yet, asked of the service: ") == true)
        await engine.waitUntilIdle()
        let whole = try await eventually {
            _ = app.handle([])
            return form.notLoadedFields.isEmpty && !terminal.lastFrame.joined().contains("not loaded yet")
        }
        #expect(whole, "\(terminal.lastFrame.joined(separator: "\n"))")
        #expect(try cache.entity(carKey)?.isComplete == true)
        #expect(form.fields.first { $0.input.name == "createStamp" }?.original != nil)
        await stack.stop()
    }
}
