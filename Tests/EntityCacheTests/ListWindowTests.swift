import Foundation
import ODataCore
import Testing

@testable import EntityCache

@Suite struct ListWindowTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let people = ListRequest(entitySet: "Person").key

    func store(_ cache: CacheDatabase, ids: Range<Int>, offset: Int, total: Int?, next: String?, last: Bool) throws {
        try cache.write { session in
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
            #expect(window.rows.map { $0.entity?.key } == expected)
        }
    }

    @Test @MainActor func an_observed_window_is_told_when_a_page_lands() async throws {
        // Given an observation of an empty list's first window
        let cache = try CacheDatabase()
        var seen: [ListWindow] = []
        let observation = cache.observeListWindow(people, range: 0..<10) { seen.append($0) }
        defer { observation.cancel() }
        try await pollUntil { !seen.isEmpty }
        #expect(seen.first?.state == nil)
        // When a page is written
        try store(cache, ids: 0..<4, offset: 0, total: 4, next: nil, last: true)
        // Then the observer receives the rows
        try await pollUntil { seen.last?.rows.count == 4 }
    }
}

/// Polls `condition` on the main actor until it holds or the deadline passes (no fixed sleeps).
@MainActor
func pollUntil(seconds: Double = 5, _ condition: () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        guard Date() < deadline else {
            Issue.record("condition not met within \(seconds) s")
            return
        }
        try await Task.sleep(nanoseconds: 2_000_000)
    }
}
