import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import Sync

/// A list whose pages say nothing of its length (a service that ignores `$inlinecount` / `$count=true`): the length
/// is asked once on its own, `…/$count` with the list's filter (issue 37), so that the list knows where it ends.
/// A service whose pages carry it is never asked; one that refuses `$count` is asked no more, and the list is as it
/// was, with nothing said on the status line.
@Suite struct ListCountTests {
    static let root = SyncEngineTests.root
    static let fords = ListRequest(
        entitySet: "Person", filter: "firstName ne 'X'")

    func engine(_ transport: FakeTransport) throws -> SyncEngine {
        var configuration = SyncEngine.Configuration(serviceRoot: Self.root)
        configuration.pageSize = 10
        // (no page ahead of the window: the list's length comes from the count alone, not from reading to its end)
        configuration.prefetchMargin = 0
        return SyncEngine(
            configuration: configuration, cache: try CacheDatabase(), transport: transport,
            model: CarDealerModel.model, clock: ManualClock(autoAdvance: true), random: { 0.5 })
    }

    /// Pages of 25 people; `count` says whether they carry `__count`; `/$count` answers `counted`.
    static func service(count: Bool, counted: @escaping @Sendable () -> TransportResponse) -> FakeTransport {
        FakeTransport { request, _ in
            if request.url.contains("/$count") { return counted() }
            let skip =
                request.url.range(of: "$skip=").map { Int(request.url[$0.upperBound...].prefix { $0.isNumber })! } ?? 0
            return json(SyncEngineTests.peoplePage(skip..<min(skip + 10, 25), count: count ? 25 : nil))
        }
    }

    @Test func a_list_without_a_length_asks_its_count_once_with_its_filter() async throws {
        let transport = Self.service(count: false) { TransportResponse(status: 200, body: Array("25".utf8)) }
        let engine = try engine(transport)
        engine.screenDidShow(.list(Self.fords), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()
        #expect(
            try await eventually(seconds: 10) { try engine.cache.listState(Self.fords.key)?.totalCount == 25 })
        // Shown again, scrolled: not asked again
        engine.screenDidShow(.list(Self.fords), visible: 3..<8, screen: ScreenID(1))
        await engine.waitUntilIdle()
        let counts = await transport.requests.map(\.url).filter { $0.contains("$count") }
        #expect(counts == [Self.root + "Person/$count?$filter=firstName%20ne%20'X'"], "\(counts)")
        #expect(try engine.cache.syncStatus().lastError == nil)
    }

    @Test func a_list_whose_pages_say_their_length_asks_no_count() async throws {
        let transport = Self.service(count: true) { TransportResponse(status: 200, body: Array("25".utf8)) }
        let engine = try engine(transport)
        engine.screenDidShow(.list(Self.fords), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()
        let asked = await transport.requests.map(\.url)
        let said = try engine.cache.syncStatus().lastError
        #expect(try engine.cache.listState(Self.fords.key)?.totalCount == 25, "\(asked) \(String(describing: said))")
        #expect(await transport.requests.allSatisfy { !$0.url.contains("$count") })
    }

    @Test(arguments: [404, 200])
    func a_count_refused_or_not_a_number_leaves_the_list_as_it_was_and_says_nothing(status: Int) async throws {
        let transport = Self.service(count: false) {
            status == 404
                ? json(#"{"error":{"code":"404","message":{"lang":"en","value":"No $count here"}}}"#, status: 404)
                : json(#"{"d":{"count":25}}"#)
        }
        let engine = try engine(transport)
        engine.screenDidShow(.list(Self.fords), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()
        engine.screenDidShow(.list(Self.fords), visible: 2..<7, screen: ScreenID(1))
        await engine.waitUntilIdle()
        let state = try #require(try engine.cache.listState(Self.fords.key))
        #expect(state.totalCount == nil && state.fetchedCount >= 10 && state.lastError == nil)
        #expect(try engine.cache.syncStatus().lastError == nil)
        #expect(await transport.requests.filter { $0.url.contains("$count") }.count == 1)
    }
}
