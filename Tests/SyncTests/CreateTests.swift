import CarDealerTestSupport
import DemoServer
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Testing

@testable import Sync

/// Creates through the real stack: the demo service on 127.0.0.1 (its own data file), the AsyncHTTPClient
/// transport, a SQLite cache file. A new entity shows at once under a temporary key; the service's key replaces it.
@Suite(.serialized) struct CreateTests {
    let cars = ListRequest(entitySet: "Car")

    func withServer(_ body: (RunningDemoServer, SyncEngine) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "create-it-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 20, dataPath: directory + "/demo.sqlite", latencyMilliseconds: 150))
        let transport = HTTPClientTransport(timeout: 10)
        let opened = try await MetadataLoader.open(root: server.baseURL, transport: transport) { _ in
            directory + "/cache.sqlite"
        }
        let engine = SyncEngine(
            configuration: SyncEngine.Configuration(serviceRoot: server.baseURL), cache: opened.cache,
            transport: transport, model: opened.model)
        do {
            try await body(server, engine)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// The service's own answer for `path` (past the client's cache), decoded.
    func serviceEntities(_ server: RunningDemoServer, _ path: String) async throws -> [ODataEntity] {
        let response = try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: server.baseURL + path))
        switch try PayloadDecoder(serviceRoot: server.baseURL).decode(response.body) {
        case .entity(let entity): return [entity]
        case .collection(let collection): return collection.entities
        default: return []
        }
    }

    static let newCar: [ODataProperty] = [
        .init(name: "make", value: .string("Wartburg ✓")), .init(name: "model", value: .string("Octavia \"RS\"")),
        .init(name: "manufactureDate", value: .dateTime(ODataInstant(millisecondsSince1970: 1_600_000_000_000))),
    ]

    @Test func a_car_added_to_the_list_shows_at_once_then_takes_the_services_key() async throws {
        try await withServer { server, engine in
            engine.screenDidShow(.list(cars), visible: 0..<20, screen: ScreenID(1))
            await engine.waitUntilIdle()
            let before = try engine.cache.listState(cars.key)?.totalCount ?? 0
            #expect(before > 0)
            // When a car is added to the list
            engine.create(EntityCreation(entitySet: "Car", properties: Self.newCar, addedTo: .list(cars)))
            // Then it is first in the list under a temporary key, pending, before the service answers (150 ms)
            #expect(
                try await eventually(seconds: 5) {
                    let first = try engine.cache.listWindow(cars.key, range: 0..<1).rows.first?.entity
                    return first?.key.isTemporary == true && first?.pendingWrites == 1
                })
            // And once the service made it, the row holds the service's key and its copy, no longer pending
            #expect(
                try await eventually {
                    try engine.cache.outboxEntries().isEmpty
                        && engine.cache.listWindow(cars.key, range: 0..<1).rows.first?.entity?.key.isTemporary == false
                })
            let made = try #require(try engine.cache.listWindow(cars.key, range: 0..<1).rows.first?.entity)
            #expect(made["model"] == .string("Octavia \"RS\"") && made.pendingWrites == 0 && made.etag != nil)
            // And the service holds it once, with what was typed
            let onService = try await serviceEntities(server, "Car?$filter=make eq 'Wartburg ✓'")
            #expect(onService.count == 1 && onService.first?.key == made.key)
            #expect(onService.first?["model"] == .string("Octavia \"RS\""))
        }
    }

    @Test func a_maintenance_record_added_under_an_ownership_is_linked_to_it_through_a_new_link_entity() async throws {
        try await withServer { server, engine in
            let ownership: EntityKey = "PersonCar(1)"
            let path = ["PersonCarMaintenance", "Maintenance"]
            engine.screenDidShow(.related(parent: ownership, path: path), visible: 0..<20, screen: ScreenID(1))
            await engine.waitUntilIdle()
            guard case .known(let before, _) = try engine.cache.related(ownership, path: path) else {
                Issue.record("the ownership's records were not fetched")
                return
            }
            // When a record is added on that screen
            let record: [ODataProperty] = [
                .init(name: "description", value: .string("Brake pads; ESC[31m not a colour")),
                .init(name: "serviceDate", value: .dateTime(ODataInstant(millisecondsSince1970: 1_700_000_000_000))),
                .init(name: "mileage", value: .int(120_500)), .init(name: "cost", value: .decimal("240.50")),
            ]
            engine.create(
                EntityCreation(
                    entitySet: "Maintenance", properties: record, addedTo: .related(parent: ownership, path: path)))
            // Then it shows first at once, reached through a new link entity
            #expect(
                try await eventually(seconds: 5) {
                    guard case .known(let rows, _) = try engine.cache.related(ownership, path: path) else {
                        return false
                    }
                    return rows.count == before.count + 1 && rows.first?.link.key.isTemporary == true
                        && rows.first?.target?["mileage"] == .int(120_500)
                })
            // And once both are made, the keys are the service's
            #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
            guard case .known(let after, _) = try engine.cache.related(ownership, path: path),
                let first = after.first, let target = first.target
            else {
                Issue.record("the records are not known after the create")
                return
            }
            #expect(!first.link.key.isTemporary && !target.key.isTemporary)
            // And the service links them: the ownership's records hold the new one, once
            let links = try await serviceEntities(server, "PersonCar(1)/PersonCarMaintenance?$expand=Maintenance")
            let linked = links.compactMap { link -> ODataEntity? in
                if case .entity(let record)? = link.navigation("Maintenance") { return record }
                return nil
            }
            #expect(linked.filter { $0["mileage"] == .int(120_500) }.count == 1)
            #expect(links.contains { $0.key == first.link.key })
            // (in one changeset: the link posted through the new record, `$1/PersonCarMaintenance`)
            let log = try engine.cache.requestLog().map { ($0.method, $0.url) }
            let writes = log.filter { $0.0.hasPrefix("POST") }
            #expect(writes.map(\.0) == ["POST in $batch", "POST in $batch"], "\(log)")
            #expect(writes.last?.1.hasSuffix("$1/PersonCarMaintenance") == true, "\(log)")
        }
    }

    @Test func an_existing_car_linked_to_a_second_owner_shows_under_them_and_on_the_service() async throws {
        try await withServer { server, engine in
            let owner: EntityKey = "Person(2)"
            let path = ["PersonCar", "Car"]
            engine.screenDidShow(.list(cars), visible: 0..<20, screen: ScreenID(1))
            engine.screenDidShow(.related(parent: owner, path: path), visible: 0..<20, screen: ScreenID(2))
            await engine.waitUntilIdle()
            let car = try #require(try engine.cache.listWindow(cars.key, range: 0..<1).rows.first?.entity?.key)
            // When that car is linked to Person(2)
            engine.link(EntityLink(parent: owner, path: path, target: car))
            // Then it shows among their cars at once, and after the service made the link, under its key
            #expect(
                try await eventually(seconds: 5) {
                    guard case .known(let rows, _) = try engine.cache.related(owner, path: path) else { return false }
                    return rows.first?.target?.key == car
                })
            #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
            let links = try await serviceEntities(server, "Person(2)/PersonCar?$expand=Car")
            #expect(
                links.contains { link in
                    if case .entity(let linked)? = link.navigation("Car") { return linked.key == car }
                    return false
                })
        }
    }

    @Test func a_refused_create_leaves_the_screen_with_the_services_words_and_an_edited_one_is_made() async throws {
        try await withServer { server, engine in
            engine.screenDidShow(.list(cars), visible: 0..<20, screen: ScreenID(1))
            await engine.waitUntilIdle()
            // When a car with a make over the service's MaxLength (50) is added
            var properties = Self.newCar
            properties[0] = .init(name: "make", value: .string(String(repeating: "M", count: 51)))
            engine.create(EntityCreation(entitySet: "Car", properties: properties, addedTo: .list(cars)))
            // Then it fails with the service's sentence, and the row leaves the list
            #expect(try await eventually { try engine.cache.outboxEntries().first?.state == .failed })
            let failed = try #require(try engine.cache.outboxEntries().first)
            #expect(failed.lastError?.contains("at most 50 characters") == true, "\(failed.lastError ?? "")")
            #expect(try engine.cache.listWindow(cars.key, range: 0..<1).rows.first?.entity?.key.isTemporary == false)
            // When it is edited and sent again
            engine.resolve(outboxEntry: failed.id, .resend(Self.newCar))
            // Then it is made, once
            #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
            let onService = try await serviceEntities(server, "Car?$filter=make eq 'Wartburg ✓'")
            #expect(onService.count == 1)
        }
    }
}
