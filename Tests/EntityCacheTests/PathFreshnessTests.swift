import CarDealerTestSupport
import Foundation
import GRDB
import ODataCore
import Testing

@testable import EntityCache

/// The one read the fetcher makes at each rest of the cursor: how fresh the rested entity and each path from it are.
@Suite struct PathFreshnessTests {
    let person = EntityKey(entitySet: "Person", value: .int(1))

    func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + seconds) }

    @Test func each_path_reads_as_its_oldest_relation_and_unknown_when_one_hop_is_missing() throws {
        // Given Person(1) (fetched at 5) with two cars (relation fetched at 10); Car(1)'s services fetched at 3,
        // Car(2)'s at 7; no relation known for Person(1)/Friends
        let cache = try CacheDatabase()
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: person, entitySet: "Person", type: nil, properties: [], etag: nil, at: at(5), partial: false)
            try session.replaceRelation(
                parent: "Person(1)", navigation: "Cars", children: ["Car(1)", "Car(2)"], at: at(10))
            try session.replaceRelation(parent: "Car(1)", navigation: "Services", children: ["S(1)"], at: at(3))
            try session.replaceRelation(parent: "Car(2)", navigation: "Services", children: [], at: at(7))
        }
        // When the paths are read together
        let read = try cache.pathFreshness(
            from: person, paths: [["Cars"], ["Cars", "Services"], ["Friends"], ["Cars", "Owners"]], breadth: 64)
        // Then the entity's own fetch, each path's oldest relation, and nil where a hop is not known
        #expect(read.entity == at(5))
        #expect(read.paths == [at(10), at(3), nil, nil])
    }

    @Test func a_path_follows_at_most_breadth_parents_per_hop_and_an_entity_not_cached_reads_nil() throws {
        // Given Person(1) not cached, its three cars, and services known for the first two only
        let cache = try CacheDatabase()
        try cache.writeBlocking { session in
            try session.replaceRelation(
                parent: "Person(1)", navigation: "Cars", children: ["Car(1)", "Car(2)", "Car(3)"], at: at(10))
            try session.replaceRelation(parent: "Car(1)", navigation: "Services", children: [], at: at(9))
            try session.replaceRelation(parent: "Car(2)", navigation: "Services", children: [], at: at(8))
        }
        // When read following two parents per hop, then three
        let two = try cache.pathFreshness(from: person, paths: [["Cars", "Services"]], breadth: 2)
        let three = try cache.pathFreshness(from: person, paths: [["Cars", "Services"]], breadth: 3)
        // Then the third car is left out at two (as the fetcher's check always did) and makes it unknown at three
        #expect(two.entity == nil)
        #expect(two.paths == [at(8)])
        #expect(three.paths == [nil])
    }

    @Test func a_damaged_relation_reads_as_unknown_at_any_hop() throws {
        // Given Person(1)'s cars and Car(1)'s services, each stored damaged (not a JSON array) in turn
        for damaged in ["Person(1)", "Car(1)"] {
            let cache = try CacheDatabase()
            try cache.writeBlocking { session in
                try session.replaceRelation(parent: "Person(1)", navigation: "Cars", children: ["Car(1)"], at: at(10))
                try session.replaceRelation(parent: "Car(1)", navigation: "Services", children: [], at: at(9))
            }
            try cache.writer.write { db in
                try db.execute(
                    sql: "UPDATE relation SET childKeys = '[\"x\", 2' WHERE parentKey = ?", arguments: [damaged])
            }
            // When the path through both is read
            let read = try cache.pathFreshness(from: person, paths: [["Cars", "Services"]], breadth: 64)
            // Then it is unknown, so the fetcher asks again (as for a relation never fetched)
            #expect(read.paths == [nil], "damaged: \(damaged)")
        }
    }

    @Test func a_person_without_cars_has_fresh_paths_through_them() throws {
        // Given Person(1) whose cars are known to be none
        let cache = try CacheDatabase()
        try cache.writeBlocking {
            try $0.replaceRelation(parent: "Person(1)", navigation: "Cars", children: [], at: at(4))
        }
        // When the path through the cars is read
        let read = try cache.pathFreshness(from: person, paths: [["Cars", "Services"]], breadth: 64)
        // Then it is as fresh as the (empty) relation: there is nothing further to fetch
        #expect(read.paths == [at(4)])
    }
}
