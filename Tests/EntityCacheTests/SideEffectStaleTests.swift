import CarDealerTestSupport
import Foundation
import ODataCore
import Testing

@testable import EntityCache

/// What an action's side effects name is marked not fresh (issue 36): the relations along a path from the entity it
/// ran on, reached forward where the cache holds them, and from the other end where it holds only that (a car's
/// ownerships cached from their people); the rows stay, only their fetch time goes.
@Suite struct SideEffectStaleTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)

    /// Person 1 owns car 7 through ownership 10 (cached from the person's side: the car's own `PersonCar` is
    /// unknown); ownership 11 of person 2 holds car 8; each ownership has its maintenance cached.
    func cache() throws -> CacheDatabase {
        let cache = try CacheDatabase()
        try cache.write { session in
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
            for ownership: EntityKey in ["PersonCar(10)", "PersonCar(11)"] {
                try session.replaceRelation(
                    parent: ownership, navigation: "PersonCarMaintenance", children: ["Link(1)"],
                    at: date)
            }
        }
        return cache
    }

    func fetchedAt(_ cache: CacheDatabase, _ parent: EntityKey, _ navigation: String) throws -> Date? {
        try cache.relationKeys(parent, navigation: navigation)?.fetchedAt
    }

    @Test func a_path_through_a_relation_known_only_from_its_far_end_marks_that_ends_relation() throws {
        let cache = try cache()
        let marked = try cache.write { session in
            try session.markStale(
                from: "Car(7)",
                along: [[NavigationHop("PersonCar", partner: "Car"), NavigationHop("PersonCarMaintenance")]])
        }
        #expect(marked == ["PersonCar(10)"])
        // The ownership of car 7 is not fresh; car 8's is as it was, and the rows stay
        #expect(try fetchedAt(cache, "PersonCar(10)", "PersonCarMaintenance") == Date(timeIntervalSince1970: 0))
        #expect(try fetchedAt(cache, "PersonCar(11)", "PersonCarMaintenance") == date)
        #expect(try cache.relationKeys("PersonCar(10)", navigation: "PersonCarMaintenance")?.keys == ["Link(1)"])
    }

    @Test func without_the_way_back_only_what_is_held_forward_is_reached() throws {
        let cache = try cache()
        // Forward from the person: its ownerships and their maintenance
        let forward = try cache.write { session in
            try session.markStale(
                from: "Person(2)", along: [[NavigationHop("PersonCar"), NavigationHop("PersonCarMaintenance")]])
        }
        #expect(forward == ["Person(2)", "PersonCar(11)"])
        #expect(try fetchedAt(cache, "Person(2)", "PersonCar") == Date(timeIntervalSince1970: 0))
        #expect(try fetchedAt(cache, "PersonCar(11)", "PersonCarMaintenance") == Date(timeIntervalSince1970: 0))
        #expect(try fetchedAt(cache, "PersonCar(10)", "PersonCarMaintenance") == date)
        // From the car with no partner named: its own relation is unknown, so nothing is reached
        let none = try cache.write { session in
            try session.markStale(
                from: "Car(7)", along: [[NavigationHop("PersonCar"), NavigationHop("PersonCarMaintenance")]])
        }
        #expect(none.isEmpty)
        #expect(try fetchedAt(cache, "PersonCar(10)", "PersonCarMaintenance") == date)
    }

    @Test func the_limit_stops_the_walk() throws {
        let cache = try cache()
        let marked = try cache.write { session in
            try session.markStale(
                from: "Person(1)", along: [[NavigationHop("PersonCar"), NavigationHop("PersonCarMaintenance")]],
                limit: 1)
        }
        #expect(marked == ["Person(1)"])
        #expect(try fetchedAt(cache, "PersonCar(10)", "PersonCarMaintenance") == date)
    }
}
