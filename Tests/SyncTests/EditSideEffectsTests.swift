import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import Sync

/// `Common.SideEffects` of a plain edit (issue 36): a change the service answers without the entity (`204`) whose
/// values are among the `SourceProperties` has the targets read again (`$select` of them), and the cache shows the
/// service's value; a change that sets nothing off reads nothing. (The orders of ``DraftOrders`` without their draft
/// root: edited in place.)
@Suite struct EditSideEffectsTests {
    static let root = DraftOrders.root
    static let model: ServiceModel = {
        let document = DraftOrders.document.replacingOccurrences(of: "Common.DraftRoot", with: "Common.NoDraftHere")
        do { return try EDMXParser.parse(Array(document.utf8)) } catch { fatalError("\(error)") }
    }()
    static let order = DraftOrders.key(active: true)
    static let orderURL = root + "Orders(ID=1,IsActiveEntity=true)"

    /// A service whose `PATCH` answers 204 with a new version, and whose order's total is 42 after that.
    static func service() -> FakeTransport {
        FakeTransport { request, _ in
            switch (request.method, request.url) {
            case (.patch, orderURL): return TransportResponse(status: 204, headers: ["etag": "W/\"2\""])
            case (.get, orderURL + "?$select=total"):
                return json(#"{"ID":1,"total":42,"IsActiveEntity":true}"#, etag: "W/\"2\"")
            default: return TransportResponse(status: 404)
            }
        }
    }

    func engine(_ transport: FakeTransport) throws -> (SyncEngine, CacheDatabase) {
        let cache = try CacheDatabase()
        try cache.write { session in
            try session.upsertEntity(
                key: Self.order, entitySet: "Orders", type: nil,
                properties: [
                    .init(name: "ID", value: .int(1)), .init(name: "title", value: .string("Old")),
                    .init(name: "total", value: .int(7)), .init(name: "IsActiveEntity", value: .bool(true)),
                ], etag: "W/\"1\"", at: Date(), partial: false)
        }
        let engine = SyncEngine(
            configuration: SyncEngine.Configuration(serviceRoot: Self.root), cache: cache, transport: transport,
            model: Self.model, clock: ManualClock(autoAdvance: true), random: { 0.5 })
        return (engine, cache)
    }

    @Test func a_change_answered_without_the_entity_reads_its_side_effects_again() async throws {
        let transport = Self.service()
        let (engine, cache) = try engine(transport)
        engine.save(EntityChange(key: Self.order, changes: [.init(name: "title", value: .string("New"))]))
        #expect(try await eventually { try cache.entity(Self.order)?["total"] == .int(42) })
        #expect(try cache.entity(Self.order)?["title"] == .string("New"))
        #expect(try cache.entity(Self.order)?.etag == "W/\"2\"")
        #expect(
            await transport.requests.last.map { "\($0.method.rawValue) \($0.url)" }
                == "GET \(Self.orderURL)?$select=total")
    }

    @Test func a_change_that_sets_nothing_off_reads_nothing() async throws {
        let transport = Self.service()
        let (engine, cache) = try engine(transport)
        engine.save(EntityChange(key: Self.order, changes: [.init(name: "note", value: .string("Call"))]))
        #expect(try await eventually { try cache.outboxEntries().isEmpty })
        await engine.flushIntents()
        #expect(await transport.requests.filter { $0.method == .get }.isEmpty)
        #expect(try cache.entity(Self.order)?["total"] == .int(7))
    }
}
