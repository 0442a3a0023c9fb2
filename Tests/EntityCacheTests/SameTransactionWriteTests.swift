import CarDealerTestSupport
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import EntityCache

/// Several writes of the same rows inside one transaction (as a group commit makes) end as the last one says.
@Suite struct SameTransactionWriteTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)

    func upsert(
        _ session: CacheWriter, _ id: Int, _ value: Int, partial: Bool = false, field: String = "n"
    ) throws {
        try session.upsertEntity(
            key: "Car(\(id))", entitySet: "Car", type: partial ? nil : "M.Car",
            properties: [.init(name: field, value: .int(Int64(value)))], etag: partial ? nil : "W/\"\(value)\"",
            at: date, partial: partial)
    }

    @Test func a_key_written_several_times_in_one_transaction_ends_as_its_last_write() throws {
        // Given one transaction writing 100 cars, then cars 0..<70 again with new values (more
        // than a hundred upserts), and a relation replaced twice
        let cache = try CacheDatabase()
        try cache.writeBlocking { session in
            for id in 0..<100 { try upsert(session, id, id) }
            for id in 0..<70 { try upsert(session, id, 1_000 + id) }
            try session.replaceRelation(
                parent: "Person(1)", navigation: "Cars", children: ["Car(1)", "Car(2)"], at: date)
            try session.replaceRelation(parent: "Person(1)", navigation: "Cars", children: ["Car(3)"], at: date)
        }
        // Then each car holds its last value, and the relation its last children
        for id in 0..<100 {
            let expected = id < 70 ? 1_000 + id : id
            #expect(try cache.entity("Car(\(id))")?["n"] == .int(Int64(expected)))
            #expect(try cache.entity("Car(\(id))")?.etag == "W/\"\(expected)\"")
        }
        #expect(
            try cache.relationKeys(EntityKey(entitySet: "Person", value: .int(1)), navigation: "Cars")?.keys == [
                "Car(3)"
            ])
        #expect(try cache.stats().entities == 100)
    }

    @Test func a_partial_write_after_a_full_write_in_the_same_transaction_merges_into_it() throws {
        // Given one transaction that writes a car in full, then a $select response for it with another field
        let cache = try CacheDatabase()
        try cache.writeBlocking { session in
            try upsert(session, 1, 5)
            try upsert(session, 1, 9, partial: true, field: "m")
        }
        // Then the car has both fields and keeps the full write's type and etag
        let car = try #require(try cache.entity("Car(1)"))
        #expect(car.presentFields == ["n", "m"])
        #expect(car["n"] == ODataValue.int(5))
        #expect(car["m"] == ODataValue.int(9))
        #expect(car.type == "M.Car")
        #expect(car.etag == "W/\"5\"")
    }

    @Test func a_list_page_rewritten_in_the_same_transaction_trims_and_counts_correctly() throws {
        // Given a 50-row list page then a last page of 10 rows at offset 40 in the same transaction
        let cache = try CacheDatabase()
        let key = ListRequest(entitySet: "Car").key
        try cache.writeBlocking { session in
            for id in 0..<50 { try upsert(session, id, id) }
            try session.writeListPage(
                key, offset: 0, entityKeys: (0..<50).map { "Car(\($0))" }, totalCount: nil, nextLink: "next",
                isLastPage: false, at: date)
            try session.writeListPage(
                key, offset: 40, entityKeys: (40..<50).reversed().map { "Car(\($0))" }, totalCount: nil, nextLink: nil,
                isLastPage: true, at: date)
        }
        // Then the list is complete at 50 rows, the last page's order holds, and nothing is duplicated
        let window = try cache.listWindow(key, range: 38..<52)
        #expect(window.state?.isComplete == true)
        #expect(window.state?.fetchedCount == 50)
        #expect(
            window.rows.map { $0.entity?.key } == ["Car(38)", "Car(39)"] + (40..<50).reversed().map { "Car(\($0))" })
        #expect(try cache.integrity().isClean)
    }
}
