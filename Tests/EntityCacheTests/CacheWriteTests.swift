import CarDealerTestSupport
import Foundation
import ODataCore
import Testing

@testable import EntityCache

@Suite struct CacheWriteTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let person = EntityKey(entitySet: "Person", value: .int(1))

    @Test func a_partial_entity_merges_into_known_fields_and_never_erases_them() throws {
        // Given a full person in the cache
        let cache = try CacheDatabase()
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: "Person(1)", entitySet: "Person", type: "M.Person",
                properties: [
                    .init(name: "firstName", value: .string("Bob")), .init(name: "lastName", value: .string("Samson")),
                ],
                etag: "W/\"1\"", at: date, partial: false
            )
        }
        // When a $select response brings a new lastName and a field never seen, without an etag
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: "Person(1)", entitySet: "Person", type: nil,
                properties: [
                    .init(name: "lastName", value: .string("Sampson")), .init(name: "ssn", value: .string("5")),
                ],
                etag: nil, at: date.addingTimeInterval(5), partial: true
            )
        }
        // Then known fields keep their place, new values win, nothing is erased, etag and type stay
        let entity = try #require(try cache.entity(person))
        #expect(entity.presentFields == ["firstName", "lastName", "ssn"])
        #expect(entity["firstName"] == .string("Bob"))
        #expect(entity["lastName"] == .string("Sampson"))
        #expect(entity.etag == "W/\"1\"")
        #expect(entity.type == "M.Person")
        #expect(entity.fetchedAt == date.addingTimeInterval(5))
    }

    @Test func a_cut_copy_keeps_an_entity_whole_only_when_it_is_the_same_version() throws {
        let cache = try CacheDatabase()
        func upsert(_ fields: [(String, String)], etag: String?, partial: Bool) throws {
            try cache.writeBlocking { session in
                try session.upsertEntity(
                    key: "Person(1)", entitySet: "Person", type: nil,
                    properties: fields.map { ODataProperty(name: $0.0, value: .string($0.1)) }, etag: etag,
                    at: date, partial: partial)
            }
        }
        func entity() throws -> CachedEntity { try #require(try cache.entity(person)) }
        // A first copy cut by $select is not the whole entity
        try upsert([("lastName", "Samson")], etag: "W/\"1\"", partial: true)
        #expect(try entity().isComplete == false)
        // A whole copy is
        try upsert([("firstName", "Bob"), ("lastName", "Samson"), ("ssn", "5")], etag: "W/\"1\"", partial: false)
        #expect(try entity().isComplete)
        // A cut copy of the same version merges and leaves it whole
        try upsert([("lastName", "Samson")], etag: "W/\"1\"", partial: true)
        #expect(try entity().isComplete)
        // A cut copy of a new version: the fields it left out may have changed, so not whole, and nothing erased
        try upsert([("lastName", "Sampson")], etag: "W/\"2\"", partial: true)
        var merged = try entity()
        #expect(!merged.isComplete)
        #expect(merged["ssn"] == .string("5") && merged["lastName"] == .string("Sampson") && merged.etag == "W/\"2\"")
        // Even the same version again does not make it whole; a whole copy does
        try upsert([("lastName", "Sampson")], etag: "W/\"2\"", partial: true)
        #expect(try entity().isComplete == false)
        try upsert([("firstName", "Bob"), ("lastName", "Sampson"), ("ssn", "6")], etag: "W/\"2\"", partial: false)
        merged = try entity()
        #expect(merged.isComplete && merged["ssn"] == .string("6"))
        // A cut copy from a service without ETags cannot say it is the same version
        try upsert([("lastName", "Sampson")], etag: nil, partial: true)
        #expect(try entity().isComplete == false)
        // The list window reads the same mark
        try cache.writeBlocking { session in
            try session.writeListPage(
                ListKey(canonical: "Person"), offset: 0, entityKeys: [person], totalCount: 1, nextLink: nil,
                isLastPage: true, at: date)
        }
        let window = try cache.listWindow(ListKey(canonical: "Person"), range: 0..<1)
        #expect(window.rows.first?.entity?.isComplete == false)
    }

    @Test func an_unfetched_relation_is_unknown_and_an_empty_one_is_known_and_empty() throws {
        // Given a cache where Person(1)'s cars were fetched empty and Person(2)'s never
        let cache = try CacheDatabase()
        try cache.writeBlocking {
            try $0.replaceRelation(parent: "Person(1)", navigation: "PersonCar", children: [], at: date)
        }
        // When both are read
        let empty = try cache.related(person, navigation: "PersonCar")
        let unknown = try cache.related(EntityKey(entitySet: "Person", value: .int(2)), navigation: "PersonCar")
        // Then the first is known and empty, the second unknown
        #expect(empty == .known([], fetchedAt: date))
        #expect(unknown == .unknown)
    }

    @Test func replacing_a_relation_with_fewer_children_removes_the_old_tail() throws {
        // Given a relation of three children
        let cache = try CacheDatabase()
        try cache.writeBlocking { session in
            for id in 1...3 {
                try session.upsertEntity(
                    key: "Car(\(id))", entitySet: "Car", type: nil, properties: [], etag: nil,
                    at: date, partial: false)
            }
            try session.replaceRelation(
                parent: "Person(1)", navigation: "Cars", children: ["Car(1)", "Car(2)", "Car(3)"], at: date)
        }
        // When it is replaced by one child
        try cache.writeBlocking {
            try $0.replaceRelation(parent: "Person(1)", navigation: "Cars", children: ["Car(3)"], at: date)
        }
        // Then only that child remains
        #expect(try cache.related(person, navigation: "Cars").elements?.map(\.key) == ["Car(3)"])
        #expect(try cache.integrity().isClean)
    }

    @Test func the_cache_file_is_private_to_its_owner() throws {
        // Given a cache location under a temporary XDG cache home
        let home = NSTemporaryDirectory() + "cardealer-test-\(UUID().uuidString)"
        let location = CacheLocation(
            serviceIdentity: "builtin-demo", user: "alice", environment: ["XDG_CACHE_HOME": home])
        // When the cache is opened
        _ = try CacheDatabase(path: location.path)
        // Then the file exists with mode 0600, under cardealer/, named after the service and user
        let mode = try FileManager.default.attributesOfItem(atPath: location.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(location.path.hasPrefix(home + "/cardealer/builtin_demo_alice-"))
        #expect(
            CacheLocation(serviceIdentity: "HTTP://Host:8080/svc", environment: [:]).serviceIdentity
                == "http://host:8080/svc/")
        try FileManager.default.removeItem(atPath: home)
    }
}

extension CacheWriteTests {
    @Test(arguments: [false, true])
    func the_change_count_moves_after_every_write_and_not_after_a_read(onFile: Bool) async throws {
        // Given a cache (in memory, or a file)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try onFile ? CacheDatabase(path: directory + "/cache.sqlite") : CacheDatabase()
        var seen = [cache.changeCount]
        let upsert: @Sendable (CacheWriter) throws -> Void = { session in
            try session.upsertEntity(
                key: "Person(1)", entitySet: "Person", type: nil, properties: [.init(name: "personID", value: .int(1))],
                etag: nil, at: Date(timeIntervalSince1970: 1_700_000_000), partial: false)
        }

        // When it is read, written to in each way, and cleared
        _ = try cache.entity(person)
        #expect(cache.changeCount == seen.last)
        let upsertHere: (CacheWriter) throws -> Void = upsert  // not Sendable: the synchronous write
        try cache.writeBlocking(upsertHere)
        seen.append(cache.changeCount)
        try await cache.write(upsert)
        seen.append(cache.changeCount)
        try cache.clear()
        seen.append(cache.changeCount)
        // (a write that fails moves it too: it may have been half done by another in its group)
        _ = try? await cache.write { _ in throw CancellationError() }
        seen.append(cache.changeCount)

        // Then every write gave a new count
        #expect(Set(seen).count == seen.count, "\(seen)")
    }
}
