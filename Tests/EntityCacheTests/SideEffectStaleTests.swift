import CarDealerTestSupport
import Foundation
import GRDB
import ODataCore
import Testing

@testable import EntityCache

/// What an action's side effects name is marked not fresh (issue 36): the relations at the end of a path from the
/// entity it ran on, reached forward where the cache holds the hops, and from the other end where it holds only that
/// (a car's ownerships cached from their people); the rows stay, only their freshness goes, and an answer to a read
/// sent before the marking leaves them not fresh.
@Suite struct SideEffectStaleTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let marking = Date(timeIntervalSince1970: 1_700_000_100)
    static let ownershipsOfCar = [
        NavigationHop("PersonCar", to: "PersonCar", partner: "Car"),
        NavigationHop("PersonCarMaintenance", to: "PersonCarMaintenance", partner: "PersonCar"),
    ]

    /// Person 1 owns car 7 through ownership 10 (cached from the person's side: the car's own `PersonCar` is
    /// unknown); ownership 11 of person 2 holds car 8; each ownership has its maintenance cached. A maintenance link
    /// has a navigation named `PersonCar` too, naming car 7's key as text (it must not be taken for an ownership).
    func cache() throws -> CacheDatabase {
        let cache = try CacheDatabase()
        try cache.writeBlocking { session in
            let keys: [EntityKey] = [
                "Person(1)", "Person(2)", "PersonCar(10)", "PersonCar(11)", "Car(7)", "Car(8)", "Link(1)",
            ]
            for key in keys {
                try session.upsertEntity(
                    key: key, entitySet: key.entitySet, type: nil, properties: [], etag: nil, at: date, partial: false)
            }
            try session.replaceRelation(
                parent: "Person(1)", navigation: "PersonCar", children: ["PersonCar(10)"], at: date)
            try session.replaceRelation(
                parent: "Person(2)", navigation: "PersonCar", children: ["PersonCar(11)"], at: date)
            try session.replaceRelation(parent: "PersonCar(10)", navigation: "Car", children: ["Car(7)"], at: date)
            try session.replaceRelation(parent: "PersonCar(11)", navigation: "Car", children: ["Car(8)"], at: date)
            try session.replaceRelation(parent: "Link(1)", navigation: "Car", children: ["Car(7)"], at: date)
            for ownership: EntityKey in ["PersonCar(10)", "PersonCar(11)"] {
                try session.replaceRelation(
                    parent: ownership, navigation: "PersonCarMaintenance", children: ["Link(1)"], at: date)
            }
            try session.replaceRelation(
                parent: "Link(1)", navigation: "PersonCarMaintenance", children: ["Link(1)"], at: date)
        }
        return cache
    }

    func fetchedAt(_ cache: CacheDatabase, _ parent: EntityKey, _ navigation: String) throws -> Date? {
        try cache.relationKeys(parent, navigation: navigation)?.fetchedAt
    }

    @Test func a_path_through_a_relation_known_only_from_its_far_end_marks_only_the_relation_at_its_end() throws {
        let cache = try cache()
        let marked = try cache.writeBlocking { session in
            try session.markStale(from: "Car(7)", along: [Self.ownershipsOfCar], at: marking)
        }
        // Car 7's ownership's maintenance is not fresh; car 8's is as it was, as are the relations along the way
        // and the maintenance link that also names car 7 (it is not an ownership)
        #expect(marked == ["PersonCar(10)"])
        #expect(try fetchedAt(cache, "PersonCar(10)", "PersonCarMaintenance") == Date(timeIntervalSince1970: 0))
        #expect(try fetchedAt(cache, "PersonCar(11)", "PersonCarMaintenance") == date)
        #expect(try fetchedAt(cache, "PersonCar(10)", "Car") == date)
        #expect(try fetchedAt(cache, "Link(1)", "PersonCarMaintenance") == date)
        // And the rows stay
        #expect(try cache.relationKeys("PersonCar(10)", navigation: "PersonCarMaintenance")?.keys == ["Link(1)"])
    }

    @Test func without_the_way_back_only_what_is_held_forward_is_reached() throws {
        let cache = try cache()
        let forward = try cache.writeBlocking { session in
            try session.markStale(
                from: "Person(2)", along: [[NavigationHop("PersonCar"), NavigationHop("PersonCarMaintenance")]],
                at: marking)
        }
        #expect(forward == ["PersonCar(11)"])
        #expect(try fetchedAt(cache, "Person(2)", "PersonCar") == date)
        #expect(try fetchedAt(cache, "PersonCar(11)", "PersonCarMaintenance") == Date(timeIntervalSince1970: 0))
        #expect(try fetchedAt(cache, "PersonCar(10)", "PersonCarMaintenance") == date)
        // From the car with no way back named: its own relation is unknown, so nothing is reached
        let none = try cache.writeBlocking { session in
            try session.markStale(
                from: "Car(7)", along: [[NavigationHop("PersonCar"), NavigationHop("PersonCarMaintenance")]],
                at: marking)
        }
        #expect(none.isEmpty)
    }

    @Test func the_limit_stops_the_walk() throws {
        let cache = try cache()
        // (one entity per hop: person 1's one ownership is walked, and its maintenance marked)
        let one = try cache.writeBlocking { session in
            try session.markStale(
                from: "Person(1)", along: [[NavigationHop("PersonCar"), NavigationHop("PersonCarMaintenance")]],
                at: marking, limit: 1)
        }
        #expect(one == ["PersonCar(10)"])
        let none = try cache.writeBlocking { session in
            try session.markStale(
                from: "Person(1)", along: [[NavigationHop("PersonCar"), NavigationHop("PersonCarMaintenance")]],
                at: marking, limit: 0)
        }
        #expect(none.isEmpty)
    }

    @Test func a_damaged_relation_row_is_passed_over_not_a_failure() throws {
        let cache = try cache()
        try cache.writeBlocking { session in
            try session.db.execute(
                sql:
                    "UPDATE relation SET childKeys = 'not json' WHERE parentKey = 'PersonCar(11)' AND navigation = 'Car'"
            )
        }
        let marked = try cache.writeBlocking { session in
            try session.markStale(from: "Car(7)", along: [Self.ownershipsOfCar], at: marking)
        }
        #expect(marked == ["PersonCar(10)"])
    }

    @Test func an_answer_to_a_read_sent_before_the_marking_leaves_it_not_fresh_and_a_later_one_freshens_it() throws {
        let cache = try cache()
        try cache.writeBlocking { session in
            try session.markStale(from: "Car(7)", along: [Self.ownershipsOfCar], at: marking)
        }
        // Given an answer to a read sent before the action ran
        try cache.writeBlocking { session in
            try session.replaceRelation(
                parent: "PersonCar(10)", navigation: "PersonCarMaintenance", children: ["Link(1)"],
                at: marking.addingTimeInterval(1), requestedAt: marking.addingTimeInterval(-1))
        }
        // Then the relation is still not fresh
        #expect(try fetchedAt(cache, "PersonCar(10)", "PersonCarMaintenance") == Date(timeIntervalSince1970: 0))
        // And one sent after freshens it
        let later = marking.addingTimeInterval(3)
        try cache.writeBlocking { session in
            try session.replaceRelation(
                parent: "PersonCar(10)", navigation: "PersonCarMaintenance", children: ["Link(1)", "Link(2)"],
                at: later, requestedAt: marking.addingTimeInterval(2))
        }
        #expect(try fetchedAt(cache, "PersonCar(10)", "PersonCarMaintenance") == later)
        #expect(
            try cache.relationKeys("PersonCar(10)", navigation: "PersonCarMaintenance")?.keys == ["Link(1)", "Link(2)"])
    }
}
