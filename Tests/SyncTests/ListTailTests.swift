import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import Sync

/// Issue 17: rows far down a list asked from its end converge whatever the service does with the request: fewer
/// rows than asked (a page size of its own) fill new positions each time, and none at all sends that list back
/// to paging forward. Never the same request over and over.
@Suite struct ListTailTests {
    static let root = SyncEngineTests.root
    let ordered = ListRequest(entitySet: "Person", orderBy: [.init("lastName"), .init("firstName"), .init("personID")])

    /// People by id, in the order given, with the list's length.
    static func people(_ ids: [Int], count: Int) -> String {
        let rows = ids.map {
            #"{"__metadata":{"uri":"\#(root)Person(\#($0))"},"personID":\#($0),"lastName":"L\#($0)"}"#
        }
        return #"{"d":{"results":[\#(rows.joined(separator: ","))],"__count":"\#(count)"}}"#
    }

    /// A service of 100 people (position p holds Person(p + 1)); asked in reverse it answers `reverseRows` at most.
    static func service(reverseRows: Int) -> FakeTransport {
        FakeTransport(handler: serviceHandler(reverseRows: reverseRows))
    }

    /// The answers of ``service(reverseRows:)``.
    static func serviceHandler(reverseRows: Int) -> FakeTransport.Handler {
        { request, _ in
            func number(_ name: String) -> Int? {
                request.url.range(of: name + "=").map { Int(request.url[$0.upperBound...].prefix { $0.isNumber })! }
            }
            let skip = number("$skip") ?? 0
            let top = number("$top") ?? 100
            if request.url.contains("desc") {
                let ids = Array(stride(from: 100 - skip, to: max(0, 100 - skip - min(top, reverseRows)), by: -1))
                return json(people(ids, count: 100))
            }
            return json(people(Array((skip + 1)...min(100, skip + top)), count: 100))
        }
    }

    func engine(_ transport: FakeTransport) throws -> SyncEngine {
        try SyncEngine.forTesting(root: Self.root, transport: transport, model: CarDealerModel.model) {
            $0.pageSize = 10
            $0.tailThreshold = 20
            $0.prefetch = false
        }
    }

    /// Shows the first rows, then the last ten; the positions 90..<100 and the requests sent.
    func jumpToTheEnd(_ transport: FakeTransport) async throws -> ([EntityKey?], [String]) {
        let engine = try engine(transport)
        engine.screenDidShow(.list(ordered), visible: 0..<10, screen: ScreenID(1))
        await engine.waitUntilIdle()
        engine.screenDidShow(.list(ordered), visible: 90..<100, screen: ScreenID(1))
        await engine.waitUntilIdle()
        let rows = try engine.cache.listWindow(ordered.key, range: 90..<100).rows.map { $0.entity?.key }
        return (rows, await transport.requests.map(\.url))
    }

    var lastTen: [EntityKey?] { (91...100).map { EntityKey(entitySet: "Person", value: .int(Int64($0))) } }

    @Test func a_service_that_answers_fewer_rows_still_fills_the_end_in_place() async throws {
        let (rows, urls) = try await jumpToTheEnd(Self.service(reverseRows: 4))
        #expect(rows == lastTen, "\(rows)")
        // Three answers of 4, 4 and 2 rows from the end, each further along: no request twice
        let tails = urls.filter { $0.contains("desc") }
        #expect(tails.count == 3 && Set(tails).count == 3, "\(tails)")
    }

    @Test func a_service_that_answers_none_is_paged_forward_instead() async throws {
        let (rows, urls) = try await jumpToTheEnd(Self.service(reverseRows: 0))
        #expect(rows == lastTen, "\(rows)")
        #expect(urls.filter { $0.contains("desc") }.count == 1, "\(urls)")
        #expect(urls.contains { $0.contains("$skip=90") }, "\(urls)")
    }

    @Test func a_not_modified_answer_for_rows_asked_from_the_end_confirms_those_rows() async throws {
        // Given a service that versions its answers and says "not modified" to a matching validator
        let transport = FakeTransport { request, _ in
            if request.headers["If-None-Match"] == "W/\"tail\"" {
                return TransportResponse(status: 304, headers: [:], body: [])
            }
            var answer = try Self.serviceHandler(reverseRows: 100)(request, 0)
            if request.url.contains("desc") { answer.headers["etag"] = "W/\"tail\"" }
            return answer
        }
        let engine = try engine(transport)
        engine.screenDidShow(.list(ordered), visible: 0..<10, screen: ScreenID(1))
        await engine.waitUntilIdle()
        engine.screenDidShow(.list(ordered), visible: 90..<100, screen: ScreenID(1))
        await engine.waitUntilIdle()
        engine.screenDidShow(.list(ordered), visible: 80..<90, screen: ScreenID(1))
        await engine.waitUntilIdle()
        #expect(await transport.requests.last?.url.contains("desc") == true)
        #expect(await transport.requests.last?.url.contains("$skip=10") == true)
        // And the last twenty rows grown old in the cache
        let old = Date(timeIntervalSince1970: 1_000)
        try await engine.cache.write { try $0.touchList(ordered.key, range: 80..<100, at: old) }

        // When the user refreshes the rows on screen (80..<90, ten from the end) and the service answers 304
        engine.refresh(screen: ScreenID(1))
        await engine.waitUntilIdle()
        let last = await transport.requests.last
        #expect(last?.url.contains("desc") == true && last?.url.contains("$skip=10") == true)
        #expect(last?.headers["If-None-Match"] == "W/\"tail\"")

        // Then those rows count as confirmed now, and only those
        let status = try engine.cache.listRangeStatus(ordered.key, range: 80..<90)
        let after = try engine.cache.listRangeStatus(ordered.key, range: 90..<100)
        #expect(after.oldestFetch == old, "\(after)")
        #expect(status.firstMissing == nil && status.oldestFetch == ManualClock().now(), "\(status)")
    }

    @Test func a_list_that_shrank_before_the_rows_asked_from_its_end_gets_its_new_length() async throws {
        // Given a list of 100 whose service, asked for rows ten from its end, now has only 5 (so none there)
        let transport = FakeTransport { request, _ in
            request.url.contains("desc")
                ? json(Self.people([], count: 5)) : try Self.serviceHandler(reverseRows: 100)(request, 0)
        }
        let engine = try engine(transport)
        engine.screenDidShow(.list(ordered), visible: 0..<10, screen: ScreenID(1))
        await engine.waitUntilIdle()
        engine.screenDidShow(.list(ordered), visible: 80..<90, screen: ScreenID(1))
        await engine.waitUntilIdle()
        #expect(await transport.requests.contains { $0.url.contains("desc") && $0.url.contains("$skip=10") })
        // Then the list is five long now (its rows past that gone), and it is still asked from its end later
        let state = try #require(try engine.cache.listState(ordered.key))
        #expect(state.totalCount == 5, "\(state)")
        #expect(await engine.forwardOnly.contains(ordered.key) == false)
    }
}
