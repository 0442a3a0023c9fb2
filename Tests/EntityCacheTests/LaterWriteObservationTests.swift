import CarDealerTestSupport
import Foundation
import ODataCore
import Testing

@testable import EntityCache

/// Observations started before the data exists must see it arrive. The cache's tables are
/// `WITHOUT ROWID`, for which SQLite's update hook (and so GRDB's tracking) stays silent; the
/// cache notifies observers itself at the end of every write transaction.
@MainActor
@Suite struct LaterWriteObservationTests {
    @Test func a_relation_observed_while_unknown_is_seen_when_written() async throws {
        // Given an observation of a relation nobody has fetched
        let cache = try temporaryCache()
        var seen: [Int?] = []
        let observation = cache.observeRelated(
            EntityKey(entitySet: "PersonCar", value: .int(1)), path: ["PersonCarMaintenance", "Maintenance"]
        ) {
            seen.append($0.elements?.count)
        }
        #expect(try await eventually { seen == [nil] })

        // When the fetcher writes it
        try await cache.write { session in
            try session.upsertEntity(
                key: "PersonCarMaintenance(7)", entitySet: "PersonCarMaintenance", type: nil,
                properties: [], etag: nil, at: Date(), partial: false)
            try session.replaceRelation(
                parent: "PersonCar(1)", navigation: "PersonCarMaintenance",
                children: ["PersonCarMaintenance(7)"], at: Date())
        }

        // Then the observation delivers it
        #expect(try await eventually { seen == [nil, 1] }, "seen \(seen)")
        observation.cancel()
    }

    @Test func an_entity_observed_before_it_exists_is_seen_when_written_and_when_changed() async throws {
        let cache = try temporaryCache()
        var names: [String?] = []
        let observation = cache.observeEntity(EntityKey(entitySet: "Person", value: .int(1))) { entity in
            names.append(
                entity.flatMap { entity in
                    if case .string(let name)? = entity.properties.first(where: { $0.name == "lastName" })?.value {
                        return name
                    }
                    return nil
                })
        }
        #expect(try await eventually { names == [nil] })
        for name in ["Samson", "Sampson"] {
            try await cache.write { session in
                try session.upsertEntity(
                    key: "Person(1)", entitySet: "Person", type: nil,
                    properties: [ODataProperty(name: "lastName", value: .string(name))],
                    etag: nil, at: Date(), partial: false)
            }
            #expect(try await eventually { names.last == name }, "seen \(names)")
        }
        #expect(names == [nil, "Samson", "Sampson"])
        observation.cancel()
    }
}
