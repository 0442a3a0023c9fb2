import CarDealerTestSupport
import DemoServer
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Testing

@testable import Sync

/// The real stack: the demo service in-process on 127.0.0.1:0, the AsyncHTTPClient transport,
/// and a SQLite file — no fakes. Each test runs once per dialect: at the service's v2 root and at its v4 root.
@Suite(.serialized) struct DemoServerIntegrationTests {
    let people = ListRequest(entitySet: "Person")

    func withServer(
        latency: Int = 200, failRate: Double = 0, _ body: (RunningDemoServer, String) async throws -> Void
    ) async throws {
        let server = try await DemoServer.start(
            DemoServerConfiguration(
                people: 120, pageSize: 100, latencyMilliseconds: latency, failRate: failRate
            ))
        let directory = NSTemporaryDirectory() + "sync-it-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            try await body(server, directory + "/cache.sqlite")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// The service root of `dialect`.
    func root(_ server: RunningDemoServer, _ dialect: ODataDialect) -> String {
        dialect == .v4 ? server.version4URL : server.baseURL
    }

    func engine(
        _ server: RunningDemoServer, dialect: ODataDialect, path: String, retry: RetryPolicy = RetryPolicy(),
        pageSize: Int = 50
    ) async throws -> SyncEngine {
        let transport = HTTPClientTransport(timeout: 10)
        let opened = try await MetadataLoader.open(root: root(server, dialect), transport: transport) { _ in path }
        #expect(opened.model.dialect == dialect)
        return try SyncEngine.forTesting(
            root: root(server, dialect), transport: transport, model: opened.model, cache: opened.cache,
            clock: SystemClock()
        ) {
            $0.retry = retry
            $0.pageSize = pageSize
        }
    }

    @Test(arguments: ODataDialect.allCases)
    func after_the_first_page_settles_opening_any_person_and_their_cars_issues_zero_requests(
        dialect: ODataDialect
    ) async throws {
        try await withServer { server, path in
            // Given the people screen's first page fetched and settled (200 ms per request)
            let engine = try await engine(server, dialect: dialect, path: path)
            engine.screenDidShow(.list(people), visible: 0..<20, screen: ScreenID(1))
            await engine.waitUntilIdle()
            let settled = try engine.cache.requestLog().count
            let window = try engine.cache.listWindow(people.key, range: 0..<20)
            #expect(window.rows.count == 20 && window.rows.allSatisfy { $0.entity != nil })
            // When every person on it is opened, with their cars
            for (index, row) in window.rows.enumerated() {
                let key = try #require(row.entity?.key)
                engine.screenDidShow(.entity(key), visible: 0..<1, screen: ScreenID(100 + index))
                engine.screenDidShow(
                    .related(parent: key, path: ["PersonCar", "Car"]), visible: 0..<20,
                    screen: ScreenID(200 + index))
                // Then their cars are already in the cache
                let cars = try engine.cache.related(key, path: ["PersonCar", "Car"])
                #expect(cars.elements != nil)
                #expect(cars.elements?.allSatisfy { $0.target != nil } == true)
            }
            await engine.waitUntilIdle()
            // And the request log shows no new request
            #expect(try engine.cache.requestLog().count == settled)
        }
    }

    /// Issue 17: rows far down a long list are asked from its end in the reverse order (a first page's cost, not an
    /// `OFFSET` past every row), and land where forward paging puts them.
    @Test(arguments: ODataDialect.allCases)
    func the_end_of_a_long_list_is_asked_from_the_end_and_lands_in_place(dialect: ODataDialect) async throws {
        try await withServer(latency: 0) { server, path in
            var configuration = SyncEngine.Configuration(serviceRoot: root(server, dialect))
            configuration.pageSize = 10
            configuration.tailThreshold = 20
            configuration.prefetch = false
            let transport = HTTPClientTransport(timeout: 10)
            let opened = try await MetadataLoader.open(root: root(server, dialect), transport: transport) { _ in path }
            let engine = SyncEngine(
                configuration: configuration, cache: opened.cache, transport: transport, model: opened.model)
            let ordered = ListRequest(
                entitySet: "Person", orderBy: [.init("lastName"), .init("firstName"), .init("personID")])
            // Given the first page (which says there are 120)
            engine.screenDidShow(.list(ordered), visible: 0..<10, screen: ScreenID(1))
            await engine.waitUntilIdle()
            // When the screen jumps to the last rows, and to rows 40–49 (nearer the start: asked as they are)
            engine.screenDidShow(.list(ordered), visible: 105..<120, screen: ScreenID(1))
            await engine.waitUntilIdle()
            engine.screenDidShow(.list(ordered), visible: 40..<50, screen: ScreenID(1))
            await engine.waitUntilIdle()
            // Then the last rows were asked in the reverse order, with no $skip past the start's rows
            let urls = try engine.cache.requestLog().map(\.url)
            let tails = urls.filter { $0.contains("desc") }
            #expect(tails.count == 2, "\(urls)")
            #expect(!urls.contains { $0.contains("skip=100") || $0.contains("skip=110") }, "\(urls)")
            #expect(urls.contains { $0.contains("skip=40") && !$0.contains("desc") }, "\(urls)")
            // And they sit where forward paging puts them (an engine that never asks from the end, cache of its own)
            let cached = try engine.cache.listWindow(ordered.key, range: 100..<120).rows.map { $0.entity?.key }
            configuration.tailThreshold = .max
            let forwardOpened = try await MetadataLoader.open(root: root(server, dialect), transport: transport) { _ in
                path + "-forward"
            }
            let forward = SyncEngine(
                configuration: configuration, cache: forwardOpened.cache, transport: transport,
                model: forwardOpened.model)
            forward.screenDidShow(.list(ordered), visible: 0..<10, screen: ScreenID(1))
            await forward.waitUntilIdle()
            forward.screenDidShow(.list(ordered), visible: 100..<120, screen: ScreenID(1))
            await forward.waitUntilIdle()
            #expect(try !forward.cache.requestLog().contains { $0.url.contains("desc") })
            let expected = try forward.cache.listWindow(ordered.key, range: 100..<120).rows.map { $0.entity?.key }
            #expect(!cached.contains(nil) && cached == expected, "\(cached) against \(expected)")
            #expect(try engine.cache.listState(ordered.key)?.totalCount == 120)
        }
    }

    @Test(arguments: ODataDialect.allCases) func identical_concurrent_requests_reach_the_server_once(
        dialect: ODataDialect
    ) async throws {
        try await withServer { server, path in
            // Given an engine on the real service
            let engine = try await engine(server, dialect: dialect, path: path)
            let url = root(server, dialect) + "Person?$top=5"
            let target = FetchTarget.listPage(people.key, entitySet: "Person", offset: 0, requestedTop: 5)
            // When the same URL is fetched four times at once
            async let a = engine.fetch(url, target: target)
            async let b = engine.fetch(url, target: target)
            async let c = engine.fetch(url, target: target)
            async let d = engine.fetch(url, target: target)
            let outcomes = await [a, b, c, d].map(\.outcome)
            // Then one request was sent and three merged into it
            #expect(outcomes.allSatisfy { $0 == .fetched })
            let log = try engine.cache.requestLog().filter { $0.url == url }
            #expect(log.filter { $0.outcome == .fetched }.count == 1)
            #expect(log.filter { $0.outcome == .coalesced }.count == 3)
        }
    }

    @Test(arguments: ODataDialect.allCases)
    func with_thirty_percent_of_requests_failing_the_cache_converges_to_the_servers_data(
        dialect: ODataDialect
    ) async throws {
        try await withServer(failRate: 0.3) { server, path in
            // Given a service failing 30 % of requests with 503, and an engine that retries (12 pages of 10)
            let engine = try await loadWithRetries(server, dialect: dialect, path: path)
            // When the people screen shows all 120 rows, re-announcing itself until whole (bounded)
            var rounds = 0
            repeat {
                engine.screenDidShow(.list(people), visible: 0..<120, screen: ScreenID(1))
                await engine.waitUntilIdle()
                rounds += 1
            } while try engine.cache.listWindow(people.key, range: 0..<120).rows.contains { $0.entity == nil }
                && rounds < 20
            // Then the list holds all the server's people once each, and nothing dangles
            let window = try engine.cache.listWindow(people.key, range: 0..<200)
            #expect(window.rows.count == server.store.people)
            #expect(Set(window.rows.compactMap { $0.entity?.key }).count == server.store.people)
            #expect(window.state?.totalCount == server.store.people)
            #expect(try engine.cache.integrity().isClean)
        }
    }

    /// `$metadata` itself may hit an injected failure: try it a few times.
    func loadWithRetries(_ server: RunningDemoServer, dialect: ODataDialect, path: String) async throws -> SyncEngine {
        for _ in 0..<9 {
            if let engine = try? await engine(
                server, dialect: dialect, path: path, retry: RetryPolicy(maxAttempts: 6, baseDelay: 0.01), pageSize: 10)
            {
                return engine
            }
        }
        return try await engine(server, dialect: dialect, path: path)
    }

    @Test(arguments: ODataDialect.allCases)
    func a_restart_with_a_warm_cache_serves_data_before_any_request_completes_and_revalidates(
        dialect: ODataDialect
    ) async throws {
        try await withServer { server, path in
            // Given a first session that cached the first page
            do {
                let first = try await engine(server, dialect: dialect, path: path)
                first.screenDidShow(.list(people), visible: 0..<20, screen: ScreenID(1))
                await first.waitUntilIdle()
            }
            // When the program restarts on the same file (each request takes 200 ms)
            let cache = try CacheDatabase(path: path)
            // Then the screen's rows are readable before any request has been made
            let window = try cache.listWindow(people.key, range: 0..<20)
            #expect(window.rows.count == 20 && window.rows.allSatisfy { $0.entity != nil })
            // And a refresh revalidates by the delta link the first page came with
            let second = try await engine(server, dialect: dialect, path: path)
            second.screenDidShow(.list(people), visible: 0..<20, screen: ScreenID(1))
            second.refresh(screen: ScreenID(1))
            await second.waitUntilIdle()
            #expect(try second.cache.deltaLink(for: people.key) != nil)
            let log = try second.cache.requestLog()
            #expect(
                log.contains { $0.method.hasPrefix("GET (delta: ") },
                "\(log.map { "\($0.method) \($0.url) \($0.error ?? "")" })")
            // And without one, the page is read again (not revalidated: a 304 has no link) and brings one
            try await second.cache.write { try $0.setDeltaLink(nil, for: people.key) }
            second.refresh(screen: ScreenID(1))
            await second.waitUntilIdle()
            #expect(try second.cache.deltaLink(for: people.key) != nil)
            #expect(try second.cache.listWindow(people.key, range: 0..<20).rows.allSatisfy { $0.entity != nil })
        }
    }
}

extension DemoServerIntegrationTests {
    @Test(arguments: ODataDialect.allCases)
    func a_window_near_the_cached_end_follows_the_servers_next_links_until_the_list_is_whole(
        dialect: ODataDialect
    ) async throws {
        // Given a service whose pages hold 20 people while we ask for 50
        let server = try await DemoServer.start(DemoServerConfiguration(people: 120, pageSize: 20))
        let directory = NSTemporaryDirectory() + "sync-next-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let engine = try await engine(server, dialect: dialect, path: directory + "/cache.sqlite")
        // When the people screen shows its first 20 rows
        engine.screenDidShow(.list(people), visible: 0..<20, screen: ScreenID(1))
        await engine.waitUntilIdle()
        // Then the next links were followed past the window, and what was fetched is contiguous
        let log = try engine.cache.requestLog()
        #expect(log.contains { $0.url.contains("skiptoken") && $0.outcome == .fetched })
        #expect(try engine.cache.listWindow(people.key, range: 0..<45).rows.allSatisfy { $0.entity != nil })
        #expect(try engine.cache.listState(people.key)?.isComplete == false)
        // When the screen then shows every row
        engine.screenDidShow(.list(people), visible: 0..<120, screen: ScreenID(1))
        await engine.waitUntilIdle()
        // Then the list is whole, each person once, and complete
        let window = try engine.cache.listWindow(people.key, range: 0..<150)
        // (Seen under a loaded CI machine: 10 positions empty after idle, a link planned for an older position; see
        // NextLinkPlanTests. Say which, and what was asked.)
        let missing = window.rows.filter { $0.entity == nil }.map(\.position)
        let asked = try engine.cache.requestLog().map { "\($0.outcome) \($0.status ?? 0) \($0.url) \($0.error ?? "")" }
        #expect(
            window.rows.count == 120 && missing.isEmpty,
            "missing \(missing), state \(String(describing: window.state)), asked \(asked)")
        #expect(Set(window.rows.compactMap { $0.entity?.key }).count == 120)
        #expect(window.state?.isComplete == true)
        #expect(try engine.cache.integrity().isClean)
        await server.stop()
    }

    @Test(arguments: ODataDialect.allCases)
    func a_window_taller_than_a_short_list_leaves_it_complete_at_the_servers_count(dialect: ODataDialect) async throws {
        try await withServer(latency: 20) { server, path in
            let short = ListRequest(entitySet: "Person", filter: "personID lt 8")
            let expected = try await server.store.reader.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Person WHERE personID < 8") ?? -1
            }
            // Given a few fresh caches (the pages below land in whichever order the network gives)
            for round in 0..<3 {
                let engine = try await engine(server, dialect: dialect, path: path + ".\(round)")
                // When a 150-row window shows a list of 7 people, so pages at 0, 50 and 100 are asked for
                engine.screenDidShow(.list(short), visible: 0..<150, screen: ScreenID(1))
                await engine.waitUntilIdle()
                // Then the list is as long as the server says, whole, and complete
                let state = try #require(try engine.cache.listState(short.key))
                #expect(state.totalCount == expected, "round \(round)")
                #expect(state.isComplete, "round \(round)")
                let window = try engine.cache.listWindow(short.key, range: 0..<150)
                #expect(window.rows.count == expected && window.rows.allSatisfy { $0.entity != nil }, "round \(round)")
                #expect(try engine.cache.integrity().isClean)
            }
        }
    }
}
