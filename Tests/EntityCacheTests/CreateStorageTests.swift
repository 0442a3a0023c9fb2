import CarDealerTestSupport
import Foundation
import ODataCore
import Testing

@testable import EntityCache

/// A new entity made here stays in the list or relation it was added to while fetches cross its create: a page
/// asked for before the service made it cannot know it, so it must not take it out.
@Suite struct CreateStorageTests {
    let date = Date(timeIntervalSince1970: 1_800_000_000)
    let list = ListKey(canonical: "Person")
    let person: EntityKey = "Person(1)"

    func person(_ id: Int) -> EntityKey { EntityKey(entitySet: "Person", value: .int(Int64(id))) }

    func writePeople(_ cache: CacheDatabase, _ ids: [Int], requestedAt: Date?, at: Date) throws {
        try cache.writeBlocking { session in
            for id in ids {
                try session.upsertEntity(
                    key: person(id), entitySet: "Person", type: nil,
                    properties: [.init(name: "id", value: .int(Int64(id)))],
                    etag: nil, at: at, partial: false, requestedAt: requestedAt)
            }
            try session.writeListPage(
                list, offset: 0, entityKeys: ids.map(person), totalCount: nil, nextLink: nil, isLastPage: true, at: at,
                requestedAt: requestedAt)
        }
    }

    @Test func a_list_page_that_crosses_a_create_keeps_the_new_row_until_a_later_page_lists_it() throws {
        let cache = try CacheDatabase()
        try writePeople(cache, [1, 2], requestedAt: date, at: date)
        let temporary = EntityKey.temporary(in: "Person")
        let id = try cache.writeBlocking {
            try $0.enqueueCreate(
                temporary, entitySet: "Person", properties: [.init(name: "name", value: .string("Zed"))],
                shownIn: ShownIn(list: list), requestID: "r1", at: date.addingTimeInterval(1))
        }
        #expect(try cache.listKeys(list, range: 0..<10) == [temporary, person(1), person(2)])
        // When a page arrives while the create is on its way: the new row stays first
        try writePeople(cache, [1, 2], requestedAt: date.addingTimeInterval(2), at: date.addingTimeInterval(3))
        #expect(try cache.listKeys(list, range: 0..<10) == [temporary, person(1), person(2)])
        // And when the service makes it as Person(3), and a page asked for before that arrives after it
        let settled = date.addingTimeInterval(5)
        try cache.writeBlocking {
            try $0.settleCreate(id, serverKey: person(3), type: nil, serverCopy: nil, etag: nil, at: settled)
        }
        try writePeople(cache, [1, 2], requestedAt: settled.addingTimeInterval(-1), at: settled.addingTimeInterval(1))
        #expect(try cache.listKeys(list, range: 0..<10) == [person(3), person(1), person(2)])
        #expect(try cache.listState(list)?.fetchedCount == 3)
        // Then a page asked for after it settled is the list as the service orders it
        try writePeople(
            cache, [1, 3, 2], requestedAt: settled.addingTimeInterval(2), at: settled.addingTimeInterval(3))
        #expect(try cache.listKeys(list, range: 0..<10) == [person(1), person(3), person(2)])
        // And one that no longer has it (deleted elsewhere) takes it out
        try writePeople(cache, [1, 2], requestedAt: settled.addingTimeInterval(4), at: settled.addingTimeInterval(5))
        #expect(try cache.listKeys(list, range: 0..<10) == [person(1), person(2)])
    }

    @Test func an_entity_added_before_its_list_first_arrives_is_in_the_list_the_page_makes() throws {
        let cache = try CacheDatabase()
        let temporary = EntityKey.temporary(in: "Person")
        _ = try cache.writeBlocking {
            try $0.enqueueCreate(
                temporary, entitySet: "Person", properties: [.init(name: "name", value: .string("Zed"))],
                shownIn: ShownIn(list: list), requestID: "r1", at: date)
        }
        #expect(try cache.listKeys(list, range: 0..<10) == [temporary])
        #expect(try cache.listState(list)?.fetchedAt == nil)  // not fetched: the fetcher still asks for it
        try writePeople(cache, [1, 2], requestedAt: date.addingTimeInterval(-1), at: date.addingTimeInterval(1))
        #expect(try cache.listKeys(list, range: 0..<10) == [temporary, person(1), person(2)])
        #expect(try cache.listState(list)?.isComplete == true)
        #expect(try cache.listState(list)?.displayCount == 3)
    }

    @Test func a_relation_fetched_across_a_create_keeps_the_new_child() throws {
        let cache = try CacheDatabase()
        let cars = [EntityKey(entitySet: "Car", value: .int(1))]
        func fetched(_ children: [EntityKey], requestedAt: Date, at: Date) throws {
            try cache.writeBlocking {
                try $0.replaceRelation(
                    parent: person, navigation: "Cars", children: children, at: at, requestedAt: requestedAt)
            }
        }
        try fetched(cars, requestedAt: date, at: date)
        let temporary = EntityKey.temporary(in: "Car")
        let id = try cache.writeBlocking {
            try $0.enqueueCreate(
                temporary, entitySet: "Car", properties: [.init(name: "make", value: .string("Wartburg"))],
                shownIn: ShownIn(parent: person, navigation: "Cars"), requestID: "r1",
                at: date.addingTimeInterval(1))
        }
        try fetched(cars, requestedAt: date.addingTimeInterval(2), at: date.addingTimeInterval(3))
        #expect(try cache.relationKeys(person, navigation: "Cars")?.keys == [temporary] + cars)
        let made = EntityKey(entitySet: "Car", value: .int(2))
        let settled = date.addingTimeInterval(5)
        try cache.writeBlocking {
            try $0.settleCreate(id, serverKey: made, type: nil, serverCopy: nil, etag: nil, at: settled)
        }
        try fetched(cars, requestedAt: settled.addingTimeInterval(-1), at: settled.addingTimeInterval(1))
        #expect(try cache.relationKeys(person, navigation: "Cars")?.keys == [made] + cars)
        try fetched(cars + [made], requestedAt: settled.addingTimeInterval(2), at: settled.addingTimeInterval(3))
        #expect(try cache.relationKeys(person, navigation: "Cars")?.keys == cars + [made])
        try fetched(cars, requestedAt: settled.addingTimeInterval(4), at: settled.addingTimeInterval(5))
        #expect(try cache.relationKeys(person, navigation: "Cars")?.keys == cars)
    }
}

extension CreateStorageTests {
    /// A change made to a new entity while its create was on its way still shows once the service's copy arrives
    /// (that copy predates it), and the temporary key still names the entity for writes made after.
    @Test func a_change_made_while_the_create_was_on_its_way_outlives_the_services_copy() throws {
        let cache = try CacheDatabase()
        let temporary = EntityKey.temporary(in: "Person")
        let id = try cache.writeBlocking {
            try $0.enqueueCreate(
                temporary, entitySet: "Person", properties: [.init(name: "name", value: .string("Zed"))],
                shownIn: ShownIn(list: list), requestID: "r1", at: date)
        }
        _ = try cache.writeBlocking {
            try $0.enqueueUpdate(
                temporary, changes: [.init(name: "name", value: .string("Yara"))], requestID: "r2",
                at: date.addingTimeInterval(1))
        }
        try cache.writeBlocking {
            try $0.settleCreate(
                id, serverKey: person(3), type: nil,
                serverCopy: [.init(name: "id", value: .int(3)), .init(name: "name", value: .string("Zed"))],
                etag: "W/\"1\"", at: date.addingTimeInterval(2))
        }
        let made = try #require(try cache.entity(person(3)))
        #expect(made["name"] == .string("Yara"))
        #expect(made["id"] == .int(3))
        #expect(made.pendingWrites == 1)
        let queued = try cache.outboxEntries()
        #expect(queued.map(\.entityKey) == [person(3)])
        #expect(queued.first?.baseEtag == "W/\"1\"")
        #expect(try cache.writeBlocking { try $0.madeKey(of: temporary) } == person(3))
        #expect(try cache.writeBlocking { try $0.madeKey(of: person(1)) } == person(1))
        #expect(try cache.writeBlocking { try $0.madeKey(of: EntityKey.temporary(in: "Person")) }.isTemporary)
    }
}
