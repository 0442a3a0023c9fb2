import CarDealerTestSupport
import DemoServer
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Synchronization
import Testing

@testable import Sync

/// The outbox flushing through `$batch`, against the demo service on 127.0.0.1 in both dialects (issue 34):
/// queued writes go in one exchange, each answer inside is read as if its write went alone, and a create with the
/// link that makes it visible succeeds or fails as one. Outcomes are read back from the service over HTTP.
@Suite(.serialized) struct BatchFlushTests {
    /// The real transport, counting what goes on the wire.
    final class CountingTransport: ODataTransport {
        let inner: HTTPClientTransport
        let sent = Mutex<[TransportRequest]>([])

        init(_ inner: HTTPClientTransport) { self.inner = inner }

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            sent.withLock { $0.append(request) }
            return try await inner.send(request)
        }

        var writes: [TransportRequest] { sent.withLock { $0.filter { $0.method != .get } } }
    }

    func withServer(
        version4: Bool, _ body: (RunningDemoServer, String, SyncEngine, CountingTransport) async throws -> Void
    ) async throws {
        let directory = NSTemporaryDirectory() + "batch-it-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 20, dataPath: directory + "/demo.sqlite", latencyMilliseconds: 50))
        let root = version4 ? server.version4URL : server.baseURL
        let transport = CountingTransport(HTTPClientTransport(timeout: 10))
        let opened = try await MetadataLoader.open(root: root, transport: transport.inner) { _ in
            directory + "/cache.sqlite"
        }
        let engine = try SyncEngine.forTesting(
            root: root, transport: transport, model: opened.model, cache: opened.cache, clock: SystemClock())
        do {
            try await body(server, root, engine, transport)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func serviceEntity(_ root: String, _ path: String) async throws -> ODataEntity? {
        let response = try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: root + path))
        guard response.status == 200 else { return nil }
        let decoder = PayloadDecoder(serviceRoot: root)
        guard case .entity(let entity) = try decoder.decode(response.body) else { return nil }
        return entity
    }

    func serviceCount(_ root: String, _ path: String) async throws -> Int? {
        let response = try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: root + path + "/$count"))
        return Int(String(decoding: response.body, as: UTF8.self))
    }

    /// Caches cars 1…n as the engine would have fetched them (with their ETags).
    func fetchCars(_ engine: SyncEngine, _ count: Int) async throws {
        let cars = ListRequest(entitySet: "Car")
        engine.screenDidShow(.list(cars), visible: 0..<count, screen: ScreenID(1))
        await engine.waitUntilIdle()
        #expect(try engine.cache.listState(cars.key)?.totalCount ?? 0 >= count)
    }

    @Test(arguments: [false, true])
    func queued_changes_to_many_cars_go_in_one_batch_and_each_lands_on_the_service(version4: Bool) async throws {
        try await withServer(version4: version4) { _, root, engine, transport in
            try await fetchCars(engine, 12)
            // Given twelve changes queued one after another
            let keys = (1...12).map { EntityKey(entitySet: "Car", value: .int(Int64($0))) }
            let before = transport.writes.count
            for key in keys {
                engine.save(
                    EntityChange(key: key, changes: [.init(name: "model", value: .string("Batch \(key.canonical)"))]))
            }
            // When they are flushed
            await engine.flushIntents()
            #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
            // Then far fewer requests than writes went on the wire, $batch among them
            let writes = transport.writes.dropFirst(before)
            #expect(writes.contains { $0.url.hasSuffix("$batch") })
            #expect(writes.count < 6, "\(writes.map(\.url))")
            // And the service holds every change
            for key in keys {
                let entity = try await serviceEntity(root, key.canonical)
                #expect(entity?["model"] == .string("Batch \(key.canonical)"), "\(key.canonical)")
            }
            // And the request log names each write as sent in a batch
            let log = try engine.cache.requestLog().filter { $0.method.hasSuffix("in $batch") }
            #expect(log.count >= 6)
        }
    }

    @Test func a_stale_write_in_a_batch_is_a_conflict_for_that_write_only() async throws {
        try await withServer(version4: false) { _, root, engine, _ in
            try await fetchCars(engine, 5)
            // Given car 3 changed on the service after it was read
            var change = TransportRequest(method: .merge, url: root + "Car(3)", dialect: .v2)
            change.headers["Content-Type"] = "application/json"
            change.body = Array(#"{"model":"Theirs"}"#.utf8)
            #expect(try await HTTPClientTransport(timeout: 10).send(change).status == 204)
            // When cars 1 to 5 are changed here and flushed together
            for number in 1...5 {
                engine.save(
                    EntityChange(
                        key: EntityKey(entitySet: "Car", value: .int(Int64(number))),
                        changes: [.init(name: "model", value: .string("Mine \(number)"))]))
            }
            // Then car 3 waits in conflict with the service's copy, and the other four landed
            #expect(
                try await eventually {
                    let entries = try engine.cache.outboxEntries()
                    return entries.count == 1 && entries.first?.state == .conflict
                })
            let conflict = try #require(try engine.cache.outboxEntries().first)
            #expect(conflict.entityKey == "Car(3)")
            #expect(conflict.theirs?.first { $0.name == "model" }?.value == .string("Theirs"))
            for number in [1, 2, 4, 5] {
                #expect(try await serviceEntity(root, "Car(\(number))")?["model"] == .string("Mine \(number)"))
            }
            #expect(try await serviceEntity(root, "Car(3)")?["model"] == .string("Theirs"))
        }
    }

    static let newCar: [ODataProperty] = [
        .init(name: "make", value: .string("Batch")), .init(name: "model", value: .string("One Unit")),
        .init(name: "manufactureDate", value: .dateTime(ODataInstant(millisecondsSince1970: 1_600_000_000_000))),
    ]

    /// v4 binds the car by its Content-ID in the ownership's body; v2 posts the ownership through the new car
    /// (`$1/PersonCar`), binding the person.
    @Test(arguments: [true, false])
    func a_car_added_to_a_persons_cars_is_made_with_its_ownership_in_one_changeset(version4: Bool) async throws {
        try await withServer(version4: version4) { _, root, engine, transport in
            let owner: EntityKey = "Person(2)"
            let path = ["PersonCar", "Car"]
            engine.screenDidShow(.related(parent: owner, path: path), visible: 0..<20, screen: ScreenID(1))
            await engine.waitUntilIdle()
            let cars = try #require(try await serviceCount(root, "Car"))
            let before = transport.writes.count
            // When a car is added among Person(2)'s cars
            engine.create(
                EntityCreation(entitySet: "Car", properties: Self.newCar, addedTo: .related(parent: owner, path: path)))
            await engine.flushIntents()
            #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
            // Then the car and its ownership went in one request, and the service links them
            let writes = transport.writes.dropFirst(before)
            #expect(writes.count == 1 && writes.first?.url.hasSuffix("$batch") == true, "\(writes.map(\.url))")
            #expect(try await serviceCount(root, "Car") == cars + 1)
            let response = try await HTTPClientTransport(timeout: 10).send(
                TransportRequest(url: root + "Person(2)/PersonCar?$expand=Car", dialect: version4 ? .v4 : .v2))
            #expect(String(decoding: response.body, as: UTF8.self).contains("One Unit"))
            if !version4 {
                let batch = String(decoding: writes.first?.body ?? [], as: UTF8.self)
                #expect(batch.contains("POST $1/PersonCar"), "\(batch)")
            }
            // And the cache holds both under the service's keys
            guard case .known(let rows, _) = try engine.cache.related(owner, path: path) else {
                Issue.record("Person(2)'s cars are not known")
                return
            }
            let added = try #require(rows.first { $0.target?["model"] == .string("One Unit") })
            #expect(!added.link.key.isTemporary && added.target?.key.isTemporary == false)
        }
    }

    @Test(arguments: [true, false])
    func a_refused_ownership_leaves_no_car_behind_on_the_service(version4: Bool) async throws {
        try await withServer(version4: version4) { _, root, engine, _ in
            let owner: EntityKey = "Person(3)"
            let path = ["PersonCar", "Car"]
            engine.screenDidShow(.related(parent: owner, path: path), visible: 0..<20, screen: ScreenID(1))
            await engine.waitUntilIdle()
            let cars = try #require(try await serviceCount(root, "Car"))
            // Given Person(3) deleted on the service meanwhile (so an ownership of theirs is refused)
            let gone = try await HTTPClientTransport(timeout: 10).send(
                TransportRequest(method: .delete, url: root + "Person(3)", dialect: version4 ? .v4 : .v2))
            #expect(gone.status == 204)
            // When a car is added among their cars here
            engine.create(
                EntityCreation(entitySet: "Car", properties: Self.newCar, addedTo: .related(parent: owner, path: path)))
            // Then both writes wait for the user, saying none of it was made
            #expect(
                try await eventually {
                    let entries = try engine.cache.outboxEntries()
                    return entries.count == 2 && entries.allSatisfy { $0.state == .failed }
                })
            let entries = try engine.cache.outboxEntries()
            #expect(
                entries.allSatisfy { $0.lastError?.contains("none of it was made") == true },
                "\(entries.map(\.lastError))")
            #expect(entries.contains { $0.lastError?.contains("Person(3)") == true })
            // And the service holds no new car, linked to nobody
            #expect(try await serviceCount(root, "Car") == cars)
        }
    }
}

extension BatchFlushTests {
    /// Once a v2 service has applied a changeset that posts the ownership through the new car (`$1/PersonCar`), a
    /// refusal of one is its word on the writes: sent again, the two still go together, and a car whose ownership
    /// cannot be made is never made alone (issue 32, item 2).
    @Test func after_a_v2_join_was_taken_a_refused_one_is_sent_again_joined_and_leaves_no_car_behind() async throws {
        try await withServer(version4: false) { _, root, engine, _ in
            let path = ["PersonCar", "Car"]
            for owner: EntityKey in ["Person(2)", "Person(3)"] {
                engine.screenDidShow(.related(parent: owner, path: path), visible: 0..<20, screen: ScreenID(1))
            }
            await engine.waitUntilIdle()
            // Given a car added among Person(2)'s cars, made with its ownership in one changeset
            engine.create(
                EntityCreation(
                    entitySet: "Car", properties: Self.newCar, addedTo: .related(parent: "Person(2)", path: path)))
            await engine.flushIntents()
            #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
            let cars = try #require(try await serviceCount(root, "Car"))
            // And Person(3) deleted on the service meanwhile
            let gone = try await HTTPClientTransport(timeout: 10).send(
                TransportRequest(method: .delete, url: root + "Person(3)", dialect: .v2))
            #expect(gone.status == 204)
            // When a car added among Person(3)'s cars is refused with its ownership, and both are sent again
            engine.create(
                EntityCreation(
                    entitySet: "Car", properties: Self.newCar, addedTo: .related(parent: "Person(3)", path: path)))
            func bothRefused() async throws -> Bool {
                try await eventually {
                    let entries = try engine.cache.outboxEntries()
                    return entries.count == 2 && entries.allSatisfy { $0.state == .failed }
                }
            }
            #expect(try await bothRefused())
            for entry in try engine.cache.outboxEntries() { engine.resolve(outboxEntry: entry.id, .retry) }
            await engine.flushIntents()
            // Then they are refused together again, and the service holds no car linked to nobody
            #expect(try await bothRefused())
            #expect(try await serviceCount(root, "Car") == cars)
        }
    }

    /// A form opened on a row just added holds its temporary key; saved after the service made the entity, the
    /// change goes to the service's key (and a delete likewise), never lost as "not in the cache".
    @Test(arguments: [false, true])
    func a_change_saved_on_a_new_cars_temporary_key_after_it_was_made_lands_on_the_service(version4: Bool) async throws
    {
        try await withServer(version4: version4) { _, root, engine, _ in
            let owner: EntityKey = "Person(2)"
            let path = ["PersonCar", "Car"]
            engine.screenDidShow(.related(parent: owner, path: path), visible: 0..<20, screen: ScreenID(1))
            await engine.waitUntilIdle()
            // Given a car added among Person(2)'s cars, its temporary key read by a screen
            engine.create(
                EntityCreation(entitySet: "Car", properties: Self.newCar, addedTo: .related(parent: owner, path: path)))
            await engine.flushIntents()
            guard case .known(let rows, _) = try engine.cache.related(owner, path: path),
                let temporary = rows.first(where: { $0.target?["model"] == .string("One Unit") })?.target?.key
            else {
                Issue.record("the new car is not among Person(2)'s cars")
                return
            }
            #expect(temporary.isTemporary)
            // And made by the service since
            #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
            // When a change is saved with the temporary key
            engine.save(EntityChange(key: temporary, changes: [.init(name: "make", value: .string("Changed Late"))]))
            await engine.flushIntents()
            // Then it lands on the service, on the car the create made
            #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
            let response = try await HTTPClientTransport(timeout: 10).send(
                TransportRequest(url: root + "Person(2)/PersonCar?$expand=Car", dialect: version4 ? .v4 : .v2))
            #expect(String(decoding: response.body, as: UTF8.self).contains("Changed Late"))
            #expect(await engine.lastError?.0 == nil)
            // And a delete made with the temporary key deletes that car there
            let cars = try #require(try await serviceCount(root, "Car"))
            engine.delete(EntityDeletion(key: temporary))
            await engine.flushIntents()
            #expect(try await eventually { try await serviceCount(root, "Car") == cars - 1 })
            #expect(await engine.lastError?.0 == nil)
        }
    }
}
