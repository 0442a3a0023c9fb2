import EntityCache
import Foundation
import ODataCore
import Sync
import Testing

/// Found by the fault soak: a server page size smaller than the fetcher's marked a list complete too early.
@Suite struct ServerPagingTests {
    /// A verbose-JSON page of people `ids`, with `__count` and an optional `__next`.
    static func page(_ ids: ClosedRange<Int>, count: Int, next: String?) -> [UInt8] {
        let results = ids.map {
            #"{"__metadata":{"uri":"http://h/S.svc/Person(\#($0))","type":"M.Person"},"personID":\#($0)}"#
        }
        let nextField = next.map { #","__next":"\#($0)""# } ?? ""
        return Array(#"{"d":{"__count":"\#(count)","results":[\#(results.joined(separator: ","))]\#(nextField)}}"#.utf8)
    }

    @Test func a_next_link_page_whose_top_ran_out_does_not_end_a_longer_list() throws {
        // Given a list of 120 fetched 50 at a time from a server that pages by 40:
        // the first page has 40 rows and a `__next` for the remaining 10
        let cache = try CacheDatabase()
        let key = ListKey(canonical: "Person?$orderby=lastName")
        let decoder = PayloadDecoder(serviceRoot: "http://h/S.svc/")
        let first = try decoder.decode(
            Self.page(1...40, count: 120, next: "http://h/S.svc/Person?$top=10&$skiptoken=40"), entitySet: "Person")
        try cache.writeBlocking {
            try Normaliser().write(
                first, for: .listPage(key, entitySet: "Person", offset: 0, requestedTop: 50), partial: false,
                at: Date(), into: $0)
        }

        // When the `__next` page brings those 10 and, its `$top` spent, no further `__next`
        let second = try decoder.decode(Self.page(41...50, count: 120, next: nil), entitySet: "Person")
        try cache.writeBlocking {
            try Normaliser().write(
                second, for: .listPage(key, entitySet: "Person", offset: 40, requestedTop: nil), partial: false,
                at: Date(), into: $0)
        }

        // Then the list is 50 of 120, not complete at 50
        let state = try #require(try cache.listState(key))
        #expect(state.fetchedCount == 50)
        #expect(state.totalCount == 120)
        #expect(!state.isComplete)
    }
}

/// Found by the fault soak: a 200 that is an HTML page was reported only as "invalid JSON at byte 0".
@Suite struct WrongContentTypeTests {
    /// Answers every GET with a captive portal's login page.
    struct PortalTransport: ODataTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            TransportResponse(
                status: 200, headers: ["content-type": "text/html; charset=utf-8"],
                body: Array("<html>Sign in</html>".utf8))
        }
    }

    @Test func an_html_page_instead_of_json_is_named_by_its_content_type() async throws {
        // Given a fetcher whose every answer is an HTML login page
        let cache = try CacheDatabase()
        let engine = try SyncEngine.forTesting(
            root: "http://h/S.svc/", transport: PortalTransport(), model: nil, cache: cache, clock: SystemClock())
        // When it fetches an entity
        let result = await engine.fetch(
            "http://h/S.svc/Person(1)", target: .entity(EntityKey(entitySet: "Person", value: .int(1)), expanded: []))
        // Then the failure says what came instead of JSON, and the status line's error does too
        #expect(result.outcome == .failed)
        #expect(
            result.error?.description.contains("the answer is text/html, not JSON") == true,
            "\(String(describing: result.error))")
        await engine.waitUntilIdle()
        #expect(try cache.syncStatus().lastError?.contains("text/html") == true)
    }
}
