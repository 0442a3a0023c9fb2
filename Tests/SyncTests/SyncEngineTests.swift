import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Synchronization
import Testing

@testable import Sync

@Suite struct SyncEngineTests {
    static let root = "http://cardealer.test/svc/"

    /// People `ids` with their PersonCar/Car expanded, as a v2 collection.
    static func peoplePage(_ ids: Range<Int>, count: Int? = nil, next: String? = nil) -> String {
        let people = ids.map { id in
            #"""
            {"__metadata":{"uri":"\#(root)Person(\#(id))"},"personID":\#(id),"firstName":"P\#(id)",
             "PersonCar":{"results":[{"__metadata":{"uri":"\#(root)PersonCar(\#(id))"},"personCarID":\#(id),
               "Car":{"__metadata":{"uri":"\#(root)Car(\#(id))"},"carID":\#(id),"make":"Ford"}}]}}
            """#
        }.joined(separator: ",")
        let countText = count.map { #","__count":"\#($0)""# } ?? ""
        let nextText = next.map { #","__next":"\#($0)""# } ?? ""
        return #"{"d":{"results":[\#(people)]\#(countText)\#(nextText)}}"#
    }

    func makeEngine(
        _ transport: FakeTransport, clock: ManualClock = ManualClock(autoAdvance: true),
        cache: CacheDatabase? = nil
    ) throws -> SyncEngine {
        try SyncEngine.forTesting(
            root: Self.root, transport: transport, model: CarDealerModel.model, cache: cache, clock: clock
        ) { $0.pageSize = 10 }
    }

    @Test func after_the_first_page_settles_opening_a_person_and_their_cars_makes_no_request() async throws {
        // Given a service with 25 people, paged by our $top
        let transport = FakeTransport { request, _ in
            let skip =
                request.url.range(of: "$skip=").map { Int(request.url[$0.upperBound...].prefix { $0.isNumber })! } ?? 0
            return json(Self.peoplePage(skip..<min(skip + 10, 25), count: 25))
        }
        let engine = try makeEngine(transport)
        // When the people screen shows its first rows and settles
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()
        let sent = await transport.requests.count
        #expect(sent >= 1)
        #expect(
            await transport.requests.first?.url == Self.root
                + "Person?$expand=PersonCar/Car&$top=10&$inlinecount=allpages")
        // And a person and their cars are opened
        let person = EntityKey(entitySet: "Person", value: .int(3))
        engine.screenDidShow(.entity(person), visible: 0..<1, screen: ScreenID(2))
        engine.screenDidShow(
            .related(parent: person, path: ["PersonCar", "Car"]), visible: 0..<10, screen: ScreenID(3))
        await engine.waitUntilIdle()
        // Then no further request was made, and the cars are in the cache
        let after = await transport.requests.map(\.url)
        #expect(after.count == sent, "\(after.dropFirst(sent))")
        #expect(
            try engine.cache.related(person, path: ["PersonCar", "Car"]).elements?.first?.target?["make"]
                == .string("Ford"))
        #expect(try engine.cache.listWindow(ListRequest(entitySet: "Person").key, range: 0..<5).state?.totalCount == 25)
    }

    @Test func identical_concurrent_requests_reach_the_server_once() async throws {
        // Given a transport that holds requests
        let transport = FakeTransport { _, _ in json(Self.peoplePage(0..<2)) }
        await transport.hold()
        let engine = try makeEngine(transport)
        let url = Self.root + "Person?$top=2"
        let target = FetchTarget.listPage(
            ListRequest(entitySet: "Person").key, entitySet: "Person", offset: 0, requestedTop: 2)
        // When the same URL is fetched three times concurrently
        async let first = engine.fetch(url, target: target)
        async let second = engine.fetch(url, target: target)
        async let third = engine.fetch(url, target: target)
        #expect(try await eventually { await transport.waitingCount == 1 })
        await transport.release()
        let outcomes = await [first, second, third].map(\.outcome)
        // Then the server saw it once, every caller got the result, and the log shows the merges
        #expect(await transport.count(of: url) == 1)
        #expect(outcomes == [.fetched, .fetched, .fetched])
        let log = try engine.cache.requestLog().map(\.outcome)
        #expect(log.filter { $0 == .coalesced }.count == 2)
        #expect(log.filter { $0 == .fetched }.count == 1)
    }

    @Test func closing_a_screen_cancels_its_fetch_and_writes_nothing() async throws {
        // Given a people screen whose first page is on the wire
        let transport = FakeTransport { _, _ in json(Self.peoplePage(0..<10)) }
        await transport.hold()
        let engine = try makeEngine(transport)
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<5, screen: ScreenID(1))
        #expect(try await eventually { await transport.waitingCount == 1 })
        // When the screen is closed
        engine.screenDidClose(ScreenID(1))
        await engine.flushIntents()
        await transport.release()
        // Then the fetch ends cancelled and the list stays unfetched
        #expect(try await eventually { try engine.cache.requestLog().contains { $0.outcome == .cancelled } })
        #expect(try engine.cache.listState(ListRequest(entitySet: "Person").key) == nil)
    }

    @Test func failed_attempts_are_retried_with_capped_exponential_backoff_and_jitter() async throws {
        // Given a service that answers 503 twice, then the data; a manual clock; random fixed at 0.5
        let transport = FakeTransport { _, number in
            number <= 2 ? json("{}", status: 503) : json(Self.peoplePage(0..<1))
        }
        let clock = ManualClock()
        let engine = try makeEngine(transport, clock: clock)
        let target = FetchTarget.listPage(
            ListRequest(entitySet: "Person").key, entitySet: "Person", offset: 0, requestedTop: 1)
        // When a fetch is made and time is advanced through each backoff
        async let result = engine.fetch(Self.root + "Person?$top=1", target: target)
        #expect(try await eventually { await clock.pendingSleeps == 1 })
        await clock.advance(by: 1)
        #expect(
            try await eventually {
                let slept = await clock.sleeps.count
                let pending = await clock.pendingSleeps
                return slept == 2 && pending == 1
            })
        await clock.advance(by: 1)
        // Then it succeeds on the third attempt after waits of 0.2·2⁰ and 0.2·2¹, each scaled by 1 − 0.5·0.5
        #expect(await result.outcome == .fetched)
        let sleeps = await clock.sleeps
        #expect(sleeps.count == 2 && abs(sleeps[0] - 0.15) < 1e-9 && abs(sleeps[1] - 0.3) < 1e-9)
        #expect(try engine.cache.requestLog().last?.attempts == 3)
        #expect(RetryPolicy().delay(afterAttempt: 12, random: 0) == 5)
    }

    @Test func a_revalidation_answered_304_refreshes_fetched_at_without_rewriting_rows() async throws {
        // Given a person fetched once with an ETag
        let transport = FakeTransport { request, _ in
            if request.headers["If-None-Match"] == "W/\"7\"" { return TransportResponse(status: 304) }
            return json(
                #"{"d":{"__metadata":{"uri":"\#(Self.root)Person(1)"},"personID":1,"firstName":"Bob"}}"#,
                etag: "W/\"7\"")
        }
        let engine = try makeEngine(transport)
        let person = EntityKey(entitySet: "Person", value: .int(1))
        let url = Self.root + "Person(1)"
        #expect(await engine.fetch(url, target: .entity(person, expanded: [])).outcome == .fetched)
        // When it is fetched again
        let result = await engine.fetch(url, target: .entity(person, expanded: []))
        // Then the request carried If-None-Match, the answer was 304 and the entity is intact
        #expect(result.outcome == .notModified)
        #expect(await transport.requests.last?.headers["If-None-Match"] == "W/\"7\"")
        #expect(try engine.cache.entity(person)?["firstName"] == .string("Bob"))
        #expect(try engine.cache.requestLog().map(\.outcome) == [.fetched, .notModified])
    }

    @Test func when_the_service_is_unreachable_the_cache_stays_readable_and_fetches_resume_later() async throws {
        // Given a service that cannot be reached, and a retry policy of one attempt
        let transport = FakeTransport { request, _ in
            throw ODataError(kind: .transport, message: "the connection was refused", url: request.url)
        }
        let clock = ManualClock()
        var configuration = SyncEngine.Configuration(serviceRoot: Self.root)
        configuration.retry = RetryPolicy(maxAttempts: 1)
        let engine = SyncEngine(
            configuration: configuration, cache: try CacheDatabase(), transport: transport,
            model: CarDealerModel.model, clock: clock)
        // When a screen asks for people
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<5, screen: ScreenID(1))
        // Then the status says offline with a sentence
        #expect(try await eventually { try engine.cache.syncStatus().isOnline == false })
        #expect(try engine.cache.syncStatus().lastError?.contains("connection was refused") == true)
        // When the service returns and the probe interval passes
        await transport.setHandler { _, _ in json(Self.peoplePage(0..<3)) }
        #expect(try await eventually { await clock.pendingSleeps == 1 })
        await clock.advance(by: 5)
        // Then the parked fetch completes and the status is online again
        #expect(try await eventually { try engine.cache.syncStatus().isOnline })
        #expect(
            try await eventually {
                try engine.cache.listWindow(ListRequest(entitySet: "Person").key, range: 0..<5).rows.count == 3
            })
    }
}

extension SyncEngineTests {
    @Test func fetches_for_rows_that_scrolled_away_are_dropped_before_they_are_sent() async throws {
        // Given one request slot, held on the wire
        let transport = FakeTransport { _, _ in json(Self.peoplePage(0..<10)) }
        await transport.hold()
        var configuration = SyncEngine.Configuration(serviceRoot: Self.root)
        configuration.pageSize = 10
        configuration.maxConcurrent = 1
        let engine = SyncEngine(
            configuration: configuration, cache: try CacheDatabase(), transport: transport,
            model: CarDealerModel.model, clock: ManualClock(autoAdvance: true))
        let list = ScreenContent.list(ListRequest(entitySet: "Person"))
        // When the screen jumps from the top to row 200, then on to row 400, before anything arrives
        engine.screenDidShow(list, visible: 0..<5, screen: ScreenID(1))
        #expect(try await eventually { await transport.waitingCount == 1 })
        engine.screenDidShow(list, visible: 200..<205, screen: ScreenID(1))
        engine.screenDidShow(list, visible: 400..<405, screen: ScreenID(1))
        await engine.flushIntents()
        await transport.release()
        await engine.waitUntilIdle()
        // Then the page at 200 was never sent, the first page was cancelled, and the page at 400 was fetched
        let sent = await transport.requests.map(\.url)
        #expect(!sent.contains { $0.contains("$skip=200") })
        let log = try engine.cache.requestLog()
        #expect(log.contains { $0.url.contains("$skip=200") && $0.outcome == .cancelled && $0.attempts == 0 })
        #expect(log.contains { !$0.url.contains("$skip") && $0.outcome == .cancelled })
        #expect(log.contains { $0.url.contains("$skip=400") && $0.outcome == .fetched })
    }
}

extension SyncEngineTests {
    @Test func a_resting_cursor_asks_only_for_what_the_list_page_did_not_bring() async throws {
        // Given people whose cars came with the list page
        let transport = FakeTransport { request, _ in
            if request.url.hasPrefix(Self.root + "Person(3)?") {
                return json(
                    #"{"d":{"__metadata":{"uri":"\#(Self.root)Person(3)"},"personID":3,"PersonCar":{"results":[]}}}"#)
            }
            return json(Self.peoplePage(0..<10, count: 10))
        }
        let engine = try makeEngine(transport)
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()

        // When the cursor rests on a person
        engine.cursorDidRest(on: EntityKey(entitySet: "Person", value: .int(3)), neighbours: [], in: ScreenID(1))
        await engine.waitUntilIdle()

        // Then the prefetch expands the level after next only, not the cars already cached
        let urls = await transport.requests.map(\.url).filter { $0.contains("Person(3)") }
        #expect(urls == [Self.root + "Person(3)?$expand=PersonCar/PersonCarMaintenance/Maintenance"], "\(urls)")
    }

    @Test func a_rest_with_a_landing_asks_the_level_after_next_for_that_row_alone() async throws {
        // Given people whose cars came with the list page (Person(n) has PersonCar(n))
        let transport = FakeTransport { request, _ in
            if request.url.hasPrefix(Self.root + "PersonCar(") {
                let id = request.url.dropFirst((Self.root + "PersonCar(").count).prefix { $0.isNumber }
                return json(
                    #"{"d":{"__metadata":{"uri":"\#(Self.root)PersonCar(\#(id))"},"personCarID":\#(id),"#
                        + #""PersonCarMaintenance":{"results":[]}}}"#)
            }
            if request.url.hasPrefix(Self.root + "Person(") {
                let id = request.url.dropFirst((Self.root + "Person(").count).prefix { $0.isNumber }
                return json(
                    #"{"d":{"__metadata":{"uri":"\#(Self.root)Person(\#(id))"},"personID":\#(id),"#
                        + #""PersonCar":{"results":[]}}}"#)
            }
            return json(Self.peoplePage(0..<10, count: 10))
        }
        let engine = try makeEngine(transport)
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()
        let person = { (id: Int64) in EntityKey(entitySet: "Person", value: .int(id)) }
        let link = { (id: Int64) in EntityKey(entitySet: "PersonCar", value: .int(id)) }

        // When the cursor rests on Person(3), its landing row named, Person(4) its neighbour
        engine.cursorDidRest(on: person(3), neighbours: [person(4)], landing: link(3), in: ScreenID(1))
        await engine.waitUntilIdle()

        // Then the landing row's next screen is asked for, not every car's history of Person(3), and nothing for
        // the neighbour, whose next screen came with the page
        var urls = await transport.requests.map(\.url).filter { !$0.contains("$top") }
        #expect(urls == [Self.root + "PersonCar(3)?$expand=PersonCarMaintenance/Maintenance"], "\(urls)")

        // And resting there again asks for nothing: it is all fresh
        engine.cursorDidRest(on: person(3), neighbours: [person(4)], landing: link(3), in: ScreenID(1))
        await engine.waitUntilIdle()
        urls = await transport.requests.map(\.url).filter { !$0.contains("$top") }
        #expect(urls.count == 1)

        // When it rests on Person(5) with no landing named (its next screen not known to the screen)
        engine.cursorDidRest(on: person(5), neighbours: [person(6)], in: ScreenID(1))
        await engine.waitUntilIdle()

        // Then Person(5) gets the level after next for every row of its next screen; its neighbour still nothing
        urls = await transport.requests.map(\.url).filter { !$0.contains("$top") }
        #expect(urls.last == Self.root + "Person(5)?$expand=PersonCar/PersonCarMaintenance/Maintenance", "\(urls)")
        #expect(urls.count == 2)
    }

    @Test func a_window_taller_than_a_counted_list_asks_for_nothing_past_its_count() async throws {
        // Given a service with 7 people, asked for 5 at a time, so the first page leaves the list counted but open
        let transport = FakeTransport { request, _ in
            if request.url.contains("$skiptoken") { return json(Self.peoplePage(5..<7, count: 7)) }
            if request.url.contains("$skip=") { return json(Self.peoplePage(0..<0, count: 7)) }
            return json(Self.peoplePage(0..<5, count: 7, next: Self.root + "Person?$skiptoken=5"))
        }
        var configuration = SyncEngine.Configuration(serviceRoot: Self.root)
        configuration.pageSize = 5
        configuration.prefetch = false
        let engine = SyncEngine(
            configuration: configuration, cache: try CacheDatabase(), transport: transport,
            model: CarDealerModel.model, clock: ManualClock(autoAdvance: true))
        let people = ListRequest(entitySet: "Person")
        engine.screenDidShow(.list(people), visible: 0..<3, screen: ScreenID(1))
        await engine.waitUntilIdle()
        #expect(try engine.cache.listState(people.key)?.totalCount == 7)
        #expect(try engine.cache.listState(people.key)?.isComplete == false)

        // When a 40-row window shows it
        engine.screenDidShow(.list(people), visible: 0..<40, screen: ScreenID(1))
        await engine.waitUntilIdle()

        // Then the rest came through the next link, no page past the count was asked for, and the list is whole
        let urls = await transport.requests.map(\.url)
        #expect(urls.contains { $0.contains("$skiptoken=5") }, "\(urls)")
        #expect(!urls.contains { $0.contains("$skip=") }, "\(urls)")
        let state = try #require(try engine.cache.listState(people.key))
        #expect(state.totalCount == 7 && state.fetchedCount == 7 && state.isComplete)
    }
}

/// A clock the test sets; sleeps return at once.
final class SetClock: SyncClock {
    private let current = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
    func now() -> Date { current.withLock { $0 } }
    func sleep(seconds: Double) async throws {}
    func advance(by seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

extension SyncEngineTests {
    /// People whose cars came with the list page, and Person(3)'s cars' histories when asked for.
    static func restingService() -> FakeTransport {
        FakeTransport { request, _ in
            if request.url.hasPrefix(Self.root + "Person(3)?") {
                return json(
                    #"{"d":{"__metadata":{"uri":"\#(Self.root)Person(3)"},"personID":3,"PersonCar":{"results":[]}}}"#)
            }
            return json(Self.peoplePage(0..<10, count: 10))
        }
    }

    @Test func a_row_found_fresh_is_asked_for_again_once_the_cache_lost_it_or_it_aged() async throws {
        // Given people whose cars came with the list page, a clock the test moves, and a rest on Person(3)
        // that fetched the level after next
        let transport = Self.restingService()
        let clock = SetClock()
        var configuration = SyncEngine.Configuration(serviceRoot: Self.root)
        configuration.pageSize = 10
        let engine = SyncEngine(
            configuration: configuration, cache: try CacheDatabase(), transport: transport,
            model: CarDealerModel.model, clock: clock, random: { 0.5 })
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()
        let person3 = EntityKey(entitySet: "Person", value: .int(3))
        let asked = { await transport.requests.map(\.url).filter { $0.hasPrefix(Self.root + "Person(3)") }.count }
        engine.cursorDidRest(on: person3, neighbours: [], in: ScreenID(1))
        await engine.waitUntilIdle()
        #expect(await asked() == 1)

        // When it rests there again, nothing changed and no time passed
        engine.cursorDidRest(on: person3, neighbours: [], in: ScreenID(1))
        await engine.waitUntilIdle()
        // Then nothing is asked for
        #expect(await asked() == 1)

        // When the cache is cleared (a write that is not the fetcher's), and the cursor rests there again
        try engine.cache.clear()
        engine.cursorDidRest(on: person3, neighbours: [], in: ScreenID(1))
        await engine.waitUntilIdle()
        // Then it is asked for again: what was fresh is gone
        #expect(await asked() == 2)

        // When, with nothing written, the freshness time passes, and the cursor rests there again
        clock.advance(by: configuration.freshness + 1)
        engine.cursorDidRest(on: person3, neighbours: [], in: ScreenID(1))
        await engine.waitUntilIdle()
        // Then it is asked for again: what was fresh has aged
        #expect(await asked() == 3)
    }
}

extension SyncEngineTests {
    @Test func the_fetcher_works_at_background_priority_on_threads_below_the_screens() async throws {
        // Given a service that notes the priority and the thread's nice value it is asked at
        let seen = Mutex<[(TaskPriority?, Int?)]>([])
        let transport = FakeTransport { _, _ in
            seen.withLock { $0.append((Task.currentPriority, threadNice())) }
            return json(Self.peoplePage(0..<3, count: 3))
        }
        let engine = try makeEngine(transport)

        // When a screen shows a list
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()

        // Then the request was made from background work, on a thread niced below the screens' (Linux)
        let (priority, nice) = try #require(seen.withLock { $0.first })
        #expect(priority == .background)
        #if os(Linux)
        #expect(
            nice == 10,
            "the thread's nice value: \(String(describing: nice)); this thread's: \(String(describing: threadNice()))"
        )
        #endif
    }
}
