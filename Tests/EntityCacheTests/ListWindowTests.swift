import CarDealerTestSupport
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import EntityCache

@Suite struct ListWindowTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let people = ListRequest(entitySet: "Person").key

    func store(_ cache: CacheDatabase, ids: Range<Int>, offset: Int, total: Int?, next: String?, last: Bool) throws {
        try cache.writeBlocking { session in
            for id in ids {
                try session.upsertEntity(
                    key: "Person(\(id))", entitySet: "Person", type: nil,
                    properties: [.init(name: "personID", value: .int(Int64(id)))], etag: nil,
                    at: date, partial: false)
            }
            try session.writeListPage(
                people, offset: offset, entityKeys: ids.map { "Person(\($0))" }, totalCount: total,
                nextLink: next, isLastPage: last, at: date)
        }
    }

    @Test func a_window_past_the_fetched_rows_shows_gaps_up_to_the_total() throws {
        // Given the first 3 of 10 people, with a next link
        let cache = try CacheDatabase()
        try store(cache, ids: 0..<3, offset: 0, total: 10, next: "Person?$skiptoken=3", last: false)
        // When the window 1..<6 is read
        let window = try cache.listWindow(people, range: 1..<6)
        // Then rows 1 and 2 are people and 3…5 are gaps; the state tells the rest
        #expect(window.rows.map { $0.entity?.key } == ["Person(1)", "Person(2)", nil, nil, nil])
        #expect(
            window.state
                == ListState(
                    totalCount: 10, fetchedCount: 3, isComplete: false, hasNextLink: true,
                    nextPosition: 3, fetchedAt: date))
    }

    @Test func the_last_page_completes_the_list_and_clips_the_window() throws {
        // Given two pages, the second without a next link
        let cache = try CacheDatabase()
        try store(cache, ids: 0..<3, offset: 0, total: nil, next: "next", last: false)
        try store(cache, ids: 3..<5, offset: 3, total: nil, next: nil, last: true)
        // When a window larger than the list is read
        let window = try cache.listWindow(people, range: 0..<50)
        // Then it holds the five people and the list is complete
        #expect(window.rows.count == 5)
        #expect(window.rows.allSatisfy { $0.entity != nil })
        #expect(window.state?.isComplete == true)
        #expect(window.state?.hasNextLink == false)
        #expect(try cache.listState(ListRequest(entitySet: "Person", filter: "x eq 1").key) == nil)
    }

    /// A window taller than a short list asks for a page past its end; that empty page (no `__next`,
    /// `__count` 30) may land before or after the rows. The soak found it making the list 50 long.
    @Test(arguments: [false, true])
    func an_empty_page_past_a_short_lists_end_leaves_its_length_at_the_count(emptyPageFirst: Bool) throws {
        // Given a list of 30 people, fetched as the page at 0 and an empty page asked at 50
        let cache = try CacheDatabase()
        let pages = [
            { try self.store(cache, ids: 0..<30, offset: 0, total: 30, next: nil, last: true) },
            { try self.store(cache, ids: 0..<0, offset: 50, total: 30, next: nil, last: true) },
        ]
        // When both land, in either order
        for page in emptyPageFirst ? pages.reversed() : pages { try page() }
        // Then the list is 30 long and complete, and a window past it is clipped
        let state = try #require(try cache.listState(people))
        #expect(state.totalCount == 30)
        #expect(state.fetchedCount == 30)
        #expect(state.isComplete)
        #expect(try cache.listWindow(people, range: 0..<100).rows.count == 30)
    }

    @Test func an_empty_last_page_without_a_count_ends_the_list_only_where_every_row_before_it_is_stored() throws {
        // Given a list of 10 people stored, from a server that sends no `__count`
        let cache = try CacheDatabase()
        try store(cache, ids: 0..<10, offset: 0, total: nil, next: "next", last: false)
        // When an empty last page is answered at 20, past a gap
        try store(cache, ids: 0..<0, offset: 20, total: nil, next: nil, last: true)
        // Then the end is not known, and the list is not complete
        var state = try #require(try cache.listState(people))
        #expect(state.totalCount == nil)
        #expect(!state.isComplete)
        // When an empty last page is answered right after the stored rows
        try store(cache, ids: 0..<0, offset: 10, total: nil, next: nil, last: true)
        // Then the list ends there and is complete
        state = try #require(try cache.listState(people))
        #expect(state.totalCount == 10)
        #expect(state.isComplete)
    }

    @Test func a_stored_length_that_later_rows_run_past_is_dropped() throws {
        // Given a list once counted at 5
        let cache = try CacheDatabase()
        try store(cache, ids: 0..<5, offset: 0, total: 5, next: nil, last: true)
        // When a page without a count brings rows 5…7 with a next link (the list grew)
        try store(cache, ids: 5..<8, offset: 5, total: nil, next: "next", last: false)
        // Then the old length is gone rather than contradicted, and the list is not complete
        let state = try #require(try cache.listState(people))
        #expect(state.totalCount == nil)
        #expect(state.fetchedCount == 8)
        #expect(!state.isComplete)
    }

    @Test func paging_and_shape_options_share_the_stored_list_but_filters_do_not() {
        // Given the same endpoint with different paging, shape and filter options
        let path = ResourcePath(entitySet: "Person")
        let paged = ListRequest(
            path: path, options: QueryOptions(expand: ["PersonCar/Car"], select: ["a"], top: 50, skip: 100))
        // Then paging and shape do not change the key; a filter does
        #expect(paged.key == ListRequest(entitySet: "Person").key)
        #expect(ListRequest(entitySet: "Person", filter: "age gt 3").key.canonical == "Person?$filter=age gt 3")
    }

    @Test func a_window_deep_in_a_large_list_is_read_by_position() throws {
        // Given a list of 200,000 people (a quick stand-in for the 1M benchmark)
        let cache = try CacheDatabase()
        try store(cache, ids: 0..<200_000, offset: 0, total: nil, next: nil, last: true)
        // When windows at the start, middle and end are read
        for start in [0, 100_000, 199_970] {
            let window = try cache.listWindow(people, range: start..<(start + 50))
            // Then each holds exactly the people at those positions
            let expected = (start..<min(start + 50, 200_000)).map { "Person(\($0))" }
            #expect(window.rows.map { $0.entity?.key.canonical } == expected)
        }
    }

    @Test @MainActor func an_observed_window_is_told_when_a_page_lands() async throws {
        // Given an observation of an empty list's first window
        let cache = try CacheDatabase()
        var seen: [ListWindow] = []
        let observation = cache.observeListWindow(people, range: 0..<10) { seen.append($0) }
        defer { observation.cancel() }
        #expect(try await eventually { !seen.isEmpty })
        #expect(seen.first?.state == nil)
        // When a page is written
        try store(cache, ids: 0..<4, offset: 0, total: 4, next: nil, last: true)
        // Then the observer receives the rows
        #expect(try await eventually { seen.last?.rows.count == 4 })
    }
}
