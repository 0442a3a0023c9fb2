import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Synchronization
import Testing

@testable import Sync

@Suite struct ConvergenceTests {
    static let root = SyncEngineTests.root
    let people = ListRequest(entitySet: "Person")

    /// Whether the first attempt at `url` fails: a fixed pseudo-random 30 % of URLs (by their text, not by the
    /// order concurrent requests happen to arrive in, which a loaded machine changes).
    static func fails(_ url: String) -> Bool {
        var x: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 { x = (x ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return x % 10 < 3
    }

    @Test func with_thirty_percent_of_requests_failing_the_cache_converges_without_duplicates_or_orphans() async throws
    {
        // Given a service of 25 people where 30 % of requests answer 500
        let attempts = Mutex<[String: Int]>([:])
        let transport = FakeTransport { request, _ in
            let attempt = attempts.withLock {
                $0[request.url, default: 0] += 1
                return $0[request.url]!
            }
            if attempt == 1, Self.fails(request.url) {
                return json(#"{"error":{"code":"X","message":"injected"}}"#, status: 500)
            }
            let skip =
                request.url.range(of: "$skip=").map { Int(request.url[$0.upperBound...].prefix { $0.isNumber })! } ?? 0
            return json(SyncEngineTests.peoplePage(skip..<min(skip + 10, 25), count: 25))
        }
        var configuration = SyncEngine.Configuration(serviceRoot: Self.root)
        configuration.pageSize = 10
        configuration.retry = RetryPolicy(maxAttempts: 2)
        let engine = SyncEngine(
            configuration: configuration, cache: try CacheDatabase(), transport: transport,
            model: CarDealerModel.model, clock: ManualClock(autoAdvance: true), random: { 0.5 })
        // When the people screen shows all rows, re-announcing itself until the list is whole (at most 10 rounds)
        var rounds = 0
        repeat {
            engine.screenDidShow(.list(people), visible: 0..<25, screen: ScreenID(1))
            await engine.waitUntilIdle()
            rounds += 1
        } while try engine.cache.listWindow(people.key, range: 0..<25).rows.contains { $0.entity == nil } && rounds < 10
        // Then every position holds the right person, with their car, and nothing dangles or repeats
        let window = try engine.cache.listWindow(people.key, range: 0..<30)
        #expect(window.rows.map { $0.entity?.key } == (0..<25).map { "Person(\($0))" })
        #expect(window.state?.isComplete == true)
        #expect(
            try engine.cache.related(EntityKey(entitySet: "Person", value: .int(24)), path: ["PersonCar", "Car"])
                .elements?.first?.target?.key == "Car(24)")
        #expect(try engine.cache.integrity().isClean)
        #expect(try engine.cache.stats().entities == 75)
        #expect(try engine.cache.requestLog().contains { $0.attempts == 2 })
    }

    @Test func a_restart_with_a_warm_cache_serves_data_before_any_request_and_revalidates_with_304() async throws {
        // Given a cache file filled by a first session from a service that sends ETags
        let directory = NSTemporaryDirectory() + "sync-warm-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/cache.sqlite"
        let etag = "W/\"people-v1\""
        let handler: FakeTransport.Handler = { request, _ in
            if request.headers["If-None-Match"] == etag { return TransportResponse(status: 304) }
            return json(SyncEngineTests.peoplePage(0..<5, count: 5), etag: etag)
        }
        var configuration = SyncEngine.Configuration(serviceRoot: Self.root)
        configuration.pageSize = 10
        do {
            let first = SyncEngine(
                configuration: configuration, cache: try CacheDatabase(path: path),
                transport: FakeTransport(handler: handler), model: CarDealerModel.model)
            first.screenDidShow(.list(people), visible: 0..<5, screen: ScreenID(1))
            await first.waitUntilIdle()
        }
        // When the program restarts on the same file while the network is held
        let transport = FakeTransport(handler: handler)
        await transport.hold()
        let cache = try CacheDatabase(path: path)
        let second = SyncEngine(
            configuration: configuration, cache: cache, transport: transport, model: CarDealerModel.model)
        // Then the screen's rows are there before any request completes
        #expect(try cache.listWindow(people.key, range: 0..<5).rows.allSatisfy { $0.entity != nil })
        // And a refresh revalidates with If-None-Match, gets 304 and keeps the rows
        second.screenDidShow(.list(people), visible: 0..<5, screen: ScreenID(1))
        second.refresh(screen: ScreenID(1))
        await second.flushIntents()
        await transport.release()
        await second.waitUntilIdle()
        #expect(await transport.requests.first?.headers["If-None-Match"] == etag)
        #expect(try cache.requestLog().last?.outcome == .notModified)
        #expect(try cache.listWindow(people.key, range: 0..<5).rows.count == 5)
    }
}
