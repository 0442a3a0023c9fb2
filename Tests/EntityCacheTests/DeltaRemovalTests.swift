import CarDealerTestSupport
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import EntityCache

/// What a delta answer says left a list goes in one pass (issue 34): rows, counts and the entities, the rows after
/// them moved up over every gap at once.
@Suite struct DeltaRemovalTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let people = ListRequest(entitySet: "Person").key

    func listed(_ cache: CacheDatabase, ids: Range<Int>, next: String?) throws {
        try cache.writeBlocking { session in
            for id in ids {
                try session.upsertEntity(
                    key: "Person(\(id))", entitySet: "Person", type: nil,
                    properties: [.init(name: "personID", value: .int(Int64(id)))], etag: nil, at: date, partial: false)
            }
            try session.writeListPage(
                people, offset: 0, entityKeys: ids.map { "Person(\($0))" }, totalCount: 20, nextLink: next,
                isLastPage: next == nil, at: date)
        }
    }

    @Test func rows_removed_apart_leave_the_rest_in_order_with_the_counts_down_by_as_many() throws {
        // Given people 0…9 listed (of 20 on the service)
        let cache = try CacheDatabase()
        try listed(cache, ids: 0..<10, next: "Person?$skiptoken=10")
        // When a delta says 2, 5, 6 and 9 left it (and 42, never listed)
        let gone: [EntityKey] = ["Person(6)", "Person(2)", "Person(9)", "Person(5)", "Person(42)"]
        try cache.writeBlocking { try $0.removeFromList(gone, list: people) }
        // Then the others keep their order, one after the other from 0, and the rest of the window is not read yet
        let rows = try cache.listWindow(people, range: 0..<8).rows.map { $0.entity?.key }
        #expect(rows == ["Person(0)", "Person(1)", "Person(3)", "Person(4)", "Person(7)", "Person(8)", nil, nil])
        // And the counts and the next position went down by four
        let state = try #require(try cache.listState(people))
        #expect(state.fetchedCount == 6 && state.totalCount == 16 && state.nextPosition == 6)
        // And the entities that left are forgotten; those that stayed are not
        #expect(try cache.entity("Person(5)") == nil && cache.entity("Person(9)") == nil)
        #expect(try cache.entity("Person(7)") != nil)
    }

    @Test func the_first_row_a_key_listed_twice_and_keys_past_one_statement_go_too() throws {
        // Given people 0…9 listed, person 4 a second time at the end (a page that shifted while it was read)
        let cache = try CacheDatabase()
        try listed(cache, ids: 0..<10, next: nil)
        try cache.writeBlocking { session in
            try session.writeListPage(
                people, offset: 10, entityKeys: ["Person(4)"], totalCount: 11, nextLink: nil, isLastPage: true,
                at: date)
        }
        let before = try #require(try cache.listState(people))
        // When the first row, person 4, and 1,200 keys never listed leave (more than one statement's worth)
        let gone = [EntityKey("Person(0)"), "Person(4)"] + (100..<1300).map { "Person(\($0))" }
        try cache.writeBlocking { try $0.removeFromList(gone, list: people) }
        // Then the others move up in order, and the rows go down by three but the service's count by two
        let rows = try cache.listWindow(people, range: 0..<8).rows.map { $0.entity?.key }
        #expect(rows == (1..<10).filter { $0 != 4 }.map { EntityKey("Person(\($0))") })
        let after = try #require(try cache.listState(people))
        #expect(after.fetchedCount == before.fetchedCount - 3)
        #expect(after.totalCount == before.totalCount.map { $0 - 2 })
    }

    @Test func which_of_many_keys_a_list_holds_is_one_answer() throws {
        let cache = try CacheDatabase()
        try listed(cache, ids: 0..<10, next: nil)
        let asked = (0..<1200).map { EntityKey(entitySet: "Person", value: .int(Int64($0 * 3))) }
        let held = try cache.writeBlocking { try $0.listHolding(asked, in: people) }
        #expect(held == ["Person(0)", "Person(3)", "Person(6)", "Person(9)"])
    }
}
