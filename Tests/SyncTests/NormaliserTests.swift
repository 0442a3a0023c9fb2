import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import Testing

@testable import Sync

@Suite struct NormaliserTests {
    let root = "http://192.168.1.112/EDMTest/CarDealer.svc/"
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let person = EntityKey(entitySet: "Person", value: .int(1))

    func ingest(_ text: String, into cache: CacheDatabase, target: FetchTarget, partial: Bool = false) throws {
        let payload = try PayloadDecoder(serviceRoot: root, model: CarDealerModel.model).decode(Array(text.utf8))
        try cache.writeBlocking { try Normaliser().write(payload, for: target, partial: partial, at: date, into: $0) }
    }

    @Test func the_seed_payload_becomes_flat_rows_readable_through_the_link_entity() throws {
        // Given the seed response for Person(1)?$expand=PersonCar/Car
        let url = try #require(
            Bundle.module.url(forResource: "Fixtures/seed-person-1-expand-personcar-car", withExtension: "json"))
        let cache = try CacheDatabase()
        // When it is normalised into the cache
        try ingest(
            String(decoding: try Data(contentsOf: url), as: UTF8.self), into: cache,
            target: .entity(person, expanded: ["PersonCar/Car"]))
        // Then the person's cars read through PersonCar in order
        let rows = try #require(try cache.related(person, path: ["PersonCar", "Car"]).elements)
        #expect(rows.map(\.link.key) == ["PersonCar(1)", "PersonCar(2)"])
        #expect(rows.map { $0.target?["model"] } == [.string("Explorer"), .string("Mustang")])
        #expect(
            try cache.entity(person)?["createDate"] == .dateTime(ODataInstant(millisecondsSince1970: 1_257_008_908_440))
        )
        // And the deferred navigations stay unknown, not empty
        #expect(
            try cache.related(EntityKey(entitySet: "PersonCar", value: .int(1)), navigation: "PersonCarMaintenance")
                == .unknown)
        #expect(try cache.related(EntityKey(entitySet: "Car", value: .int(2)), navigation: "PersonCar") == .unknown)
        #expect(try cache.integrity().isClean)
    }

    @Test func a_null_to_one_clears_the_relation_and_an_expanded_to_many_replaces_it() throws {
        // Given PersonCar(1) cached with a Car and Person(1) with two PersonCars
        let cache = try CacheDatabase()
        let car = #"{"__metadata":{"uri":"\#(root)Car(2)"},"carID":2}"#
        try ingest(
            #"{"d":{"__metadata":{"uri":"\#(root)PersonCar(1)"},"personCarID":1,"Car":\#(car)}}"#, into: cache,
            target: .entity(EntityKey(entitySet: "PersonCar", value: .int(1)), expanded: ["Car"]))
        try ingest(
            #"""
            {"d":{"__metadata":{"uri":"\#(root)Person(1)"},"personID":1,"PersonCar":{"results":[
              {"__metadata":{"uri":"\#(root)PersonCar(1)"},"personCarID":1},
              {"__metadata":{"uri":"\#(root)PersonCar(2)"},"personCarID":2}]}}}
            """#, into: cache, target: .entity(person, expanded: ["PersonCar"]))
        // When later answers say the car is null and the person has only PersonCar(2)
        try ingest(
            #"{"d":{"__metadata":{"uri":"\#(root)PersonCar(1)"},"personCarID":1,"Car":null}}"#, into: cache,
            target: .entity(EntityKey(entitySet: "PersonCar", value: .int(1)), expanded: ["Car"]))
        try ingest(
            #"""
            {"d":{"__metadata":{"uri":"\#(root)Person(1)"},"personID":1,"PersonCar":[
              {"__metadata":{"uri":"\#(root)PersonCar(2)"},"personCarID":2}]}}
            """#, into: cache, target: .entity(person, expanded: ["PersonCar"]))
        // Then the to-one is known and empty, and the to-many holds only the new positions
        #expect(
            try cache.related(EntityKey(entitySet: "PersonCar", value: .int(1)), navigation: "Car")
                == .known([], fetchedAt: date))
        #expect(try cache.related(person, navigation: "PersonCar").elements?.map(\.key) == ["PersonCar(2)"])
    }

    @Test func a_select_response_merges_without_erasing_known_fields() throws {
        // Given a full person
        let cache = try CacheDatabase()
        try ingest(
            #"{"d":{"__metadata":{"uri":"\#(root)Person(1)","etag":"W/\"1\""},"personID":1,"firstName":"Bob","lastName":"Samson"}}"#,
            into: cache, target: .entity(person, expanded: []))
        // When a $select=lastName answer arrives
        try ingest(
            #"{"d":{"__metadata":{"uri":"\#(root)Person(1)"},"lastName":"Sampson"}}"#, into: cache,
            target: .entity(person, expanded: []), partial: true)
        // Then firstName survives and lastName is updated
        let entity = try #require(try cache.entity(person))
        #expect(entity["firstName"] == .string("Bob"))
        #expect(entity["lastName"] == .string("Sampson"))
        #expect(entity.etag == "W/\"1\"")
    }

    @Test func the_policy_expands_the_next_screen_and_hops_through_link_entities() {
        // Given the CarDealer model and no display profile
        let policy = PrefetchPolicy(model: CarDealerModel.model)
        // Then a people page expands PersonCar/Car, and a resting cursor adds the maintenance level
        #expect(policy.nextScreenExpansions(forSet: "Person") == ["PersonCar/Car"])
        #expect(
            policy.restingExpansions(forSet: "Person") == [
                "PersonCar/Car", "PersonCar/PersonCarMaintenance/Maintenance",
            ])
        #expect(
            policy.relatedExpansions(parentSet: "Person", path: ["PersonCar", "Car"])
                == ["PersonCar/Car", "PersonCar/PersonCarMaintenance/Maintenance"])
        // And a profile can switch a hop off
        let plain = PrefetchPolicy(model: CarDealerModel.model, profile: PrefetchHints(hops: ["PersonCar": ""]))
        #expect(plain.nextScreenExpansions(forSet: "Person") == ["PersonCar"])
    }
}
