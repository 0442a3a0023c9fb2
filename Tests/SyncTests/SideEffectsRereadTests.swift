import CarDealerTestSupport
import DemoServer
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Testing

@testable import Sync

/// What an action's `Common.SideEffects` names is read again once the service has run it (issue 36), against the
/// demo service on 127.0.0.1 in both dialects: its action on a car records a service under the car's latest
/// ownership, and says the car's ownerships' maintenance changes. The ownership's maintenance, cached from the
/// person's side as the browser shows it, is read again without being shown again; with the annotation taken out of
/// the model it is not (the re-read is the annotation's doing).
@Suite(.serialized) struct SideEffectsRereadTests {
    struct Setting {
        var server: RunningDemoServer
        var root: String
        var engine: SyncEngine
        var action: String
    }

    func withServer(
        version4: Bool, keepSideEffects: Bool = true, _ body: (Setting) async throws -> Void
    ) async throws {
        let directory = NSTemporaryDirectory() + "side-effects-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 20, dataPath: directory + "/demo.sqlite"))
        let root = version4 ? server.version4URL : server.baseURL
        let transport = HTTPClientTransport(timeout: 10)
        let opened = try await MetadataLoader.open(root: root, transport: transport) { _ in
            directory + "/cache.sqlite"
        }
        var model = opened.model
        let index = try #require(model.operations.firstIndex { $0.displayName == "Record a standard service" })
        #expect(model.operations[index].sideEffects != nil)
        if !keepSideEffects { model.operations[index].sideEffects = nil }
        let engine = SyncEngine(
            configuration: SyncEngine.Configuration(serviceRoot: root), cache: opened.cache, transport: transport,
            model: model)
        do {
            try await body(Setting(server: server, root: root, engine: engine, action: model.operations[index].name))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// The descriptions of the ownership's maintenance as cached.
    func cachedMaintenance(_ engine: SyncEngine, ownership: Int64) throws -> [String] {
        let parent = EntityKey(entitySet: "PersonCar", value: .int(ownership))
        guard case .known(let links, _) = try engine.cache.related(parent, navigation: "PersonCarMaintenance")
        else { return [] }
        return try links.compactMap { link in
            let record = try engine.cache.related(link.key, navigation: "Maintenance").elements?.first
            if case .string(let text)? = record?["description"] { return text }
            return nil
        }
    }

    /// Shows the person's cars and the ownership's maintenance as the browser does, then invokes the action on the
    /// car: the maintenance cached before, and the service's count after.
    func invoke(
        _ setting: Setting, leavingMaintenance: Bool = false
    ) async throws -> (car: Int64, ownership: Int64, before: [String]) {
        let engine = setting.engine
        let (car, ownership, person) = try await DemoOwnerships.latest(root: setting.server.baseURL)
        let carKey = EntityKey(entitySet: "Car", value: .int(car))
        engine.screenDidShow(
            .related(parent: EntityKey(entitySet: "Person", value: .int(person)), path: ["PersonCar", "Car"]),
            visible: 0..<20, screen: ScreenID(1))
        engine.screenDidShow(
            .related(
                parent: EntityKey(entitySet: "PersonCar", value: .int(ownership)),
                path: ["PersonCarMaintenance", "Maintenance"]),
            visible: 0..<20, screen: ScreenID(2))
        await engine.flushIntents()
        await engine.waitUntilIdle()
        let before = try cachedMaintenance(engine, ownership: ownership)
        if leavingMaintenance {
            engine.screenDidClose(ScreenID(2))
            await engine.flushIntents()
        }
        // (the car itself is cached from the person's side, with its version)
        let etag = try #require(try engine.cache.entity(carKey)?.etag)
        engine.invoke(
            ActionInvocation(
                key: carKey, operation: setting.action, parameters: [.init(name: "mileage", value: .int(123_456))],
                baseEtag: etag))
        await engine.flushIntents()
        #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
        return (car, ownership, before)
    }

    @Test(arguments: [false, true])
    func the_maintenance_a_car_action_changes_is_read_again_where_it_is_shown(version4: Bool) async throws {
        try await withServer(version4: version4) { setting in
            let (_, ownership, before) = try await invoke(setting)
            #expect(!before.contains("Standard service"))
            // Then the screen's maintenance is read again without being shown again: the new record is cached
            #expect(
                try await eventually {
                    try cachedMaintenance(setting.engine, ownership: ownership).filter { $0 == "Standard service" }
                        .count == 1
                })
            #expect(try cachedMaintenance(setting.engine, ownership: ownership).count == before.count + 1)
        }
    }

    /// Left before the action and shown again a moment later (its answer still fresh by the clock), the maintenance
    /// is read again: the side effect made it not fresh, whatever was answered for it before.
    @Test func the_maintenance_left_before_the_action_is_read_again_when_shown_again() async throws {
        try await withServer(version4: false) { setting in
            let engine = setting.engine
            let ownership = try await DemoOwnerships.latest(root: setting.server.baseURL).ownership
            let maintenance = ScreenContent.related(
                parent: EntityKey(entitySet: "PersonCar", value: .int(ownership)),
                path: ["PersonCarMaintenance", "Maintenance"])
            let (_, _, before) = try await invoke(setting, leavingMaintenance: true)
            try await Task.sleep(for: .milliseconds(300))
            await engine.waitUntilIdle()
            // (closed, nothing read it again yet)
            #expect(try cachedMaintenance(engine, ownership: ownership) == before)
            engine.screenDidShow(maintenance, visible: 0..<20, screen: ScreenID(3))
            #expect(
                try await eventually {
                    try cachedMaintenance(engine, ownership: ownership).count == before.count + 1
                })
        }
    }

    @Test func without_the_annotation_the_maintenance_stays_as_cached() async throws {
        try await withServer(version4: false, keepSideEffects: false) { setting in
            let (_, ownership, before) = try await invoke(setting)
            // The service ran it (its record is there) …
            let url = setting.root + "PersonCar(\(ownership))/PersonCarMaintenance/$count"
            let count = try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: url))
            #expect(Int(String(decoding: count.body, as: UTF8.self)) == before.count + 1)
            // … but nothing said to read the maintenance again
            try await Task.sleep(for: .milliseconds(500))
            await setting.engine.waitUntilIdle()
            #expect(try cachedMaintenance(setting.engine, ownership: ownership) == before)
        }
    }

    /// A refresh (`r`) of a relation asks again without `If-None-Match`: the ETag is its parent's, and a record added
    /// elsewhere leaves the parent's version as it was, so "not modified" would keep the new record out.
    @Test(arguments: [false, true])
    func a_refresh_of_a_relation_sees_a_record_another_client_added(version4: Bool) async throws {
        try await withServer(version4: version4) { setting in
            let engine = setting.engine
            let (car, ownership, _) = try await DemoOwnerships.latest(root: setting.server.baseURL)
            let screen = ScreenID(7)
            engine.screenDidShow(
                .related(
                    parent: EntityKey(entitySet: "PersonCar", value: .int(ownership)),
                    path: ["PersonCarMaintenance", "Maintenance"]),
                visible: 0..<20, screen: screen)
            await engine.flushIntents()
            await engine.waitUntilIdle()
            let before = try cachedMaintenance(engine, ownership: ownership)
            // Given another client records a service of the car
            let other = TransportRequest(
                method: .post, url: setting.server.baseURL + "RecordService?carID=\(car)&mileage=9", dialect: .v2)
            #expect(try await HTTPClientTransport(timeout: 10).send(other).status == 200)
            // When the screen is refreshed
            engine.refresh(screen: screen)
            await engine.flushIntents()
            // Then the record is cached
            #expect(
                try await eventually { try cachedMaintenance(engine, ownership: ownership).count == before.count + 1 })
            // (without If-None-Match: a 200, not a 304; its log line may land a moment after the answer)
            func asked() throws -> [RequestLogEntry] {
                try engine.cache.requestLog().filter { $0.url.contains("PersonCar(\(ownership))") }
            }
            #expect(try await eventually { try asked().count == 2 })
            let statuses = try asked().map { $0.status ?? 0 }
            #expect(statuses == [200, 200])
        }
    }
}
