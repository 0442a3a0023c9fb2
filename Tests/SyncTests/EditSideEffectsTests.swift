import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Synchronization
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
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: Self.order, entitySet: "Orders", type: nil,
                properties: [
                    .init(name: "ID", value: .int(1)), .init(name: "title", value: .string("Old")),
                    .init(name: "total", value: .int(7)), .init(name: "IsActiveEntity", value: .bool(true)),
                ], etag: "W/\"1\"", at: Date(), partial: false)
        }
        let engine = try SyncEngine.forTesting(root: Self.root, transport: transport, model: Self.model, cache: cache)
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

    @Test func through_the_real_transport_the_targets_are_read_after_the_204() async throws {
        // Given a raw HTTP server on 127.0.0.1 answering the change with 204 and the total with 42
        let asked = Mutex<[String]>([])
        let server = try ScriptedHTTPServer { exchange in
            // (a request line: "\r\n" is one Character, so the head is split, not scanned)
            let line = exchange.head.components(separatedBy: "\r\n").first ?? ""
            guard line.hasPrefix("PATCH ") || line.hasPrefix("GET /svc/Orders") else {
                return .bytes(ScriptedHTTPServer.response(status: "200 OK", headers: [], body: []))
            }
            asked.withLock { $0.append(line) }
            if line.hasPrefix("PATCH ") {
                // (closed after: this raw server does not read a request's body)
                return .bytes(
                    ScriptedHTTPServer.response(status: "204 No Content", headers: ["ETag: W/\"2\""], body: []),
                    close: true)
            }
            let body = Array(#"{"ID":1,"total":42,"IsActiveEntity":true}"#.utf8)
            return .bytes(
                ScriptedHTTPServer.response(headers: ["Content-Type: application/json", "ETag: W/\"2\""], body: body))
        }
        defer { server.stop() }
        let root = server.url("/svc/")
        let cache = try CacheDatabase()
        let order = EntityKey(
            entitySet: "Orders",
            values: [.init(name: "ID", value: .int(1)), .init(name: "IsActiveEntity", value: .bool(true))])
        try await cache.write { session in
            try session.upsertEntity(
                key: order, entitySet: "Orders", type: nil,
                properties: [
                    .init(name: "ID", value: .int(1)), .init(name: "title", value: .string("Old")),
                    .init(name: "total", value: .int(7)), .init(name: "IsActiveEntity", value: .bool(true)),
                ], etag: "W/\"1\"", at: Date(), partial: false)
        }
        let engine = try SyncEngine.forTesting(
            root: root, transport: try HTTPClientTransport(serviceRoot: root, environment: [:], timeout: 5),
            model: Self.model, cache: cache, clock: SystemClock())
        // When the title is changed
        engine.save(EntityChange(key: order, changes: [.init(name: "title", value: .string("New"))]))
        // Then the total the service worked out is read and shown, after the change
        #expect(
            try await eventually(seconds: 10) { try cache.entity(order)?["total"] == .int(42) },
            "\((try? cache.outboxEntries())?.map { "\($0.state) \($0.lastError ?? "")" } ?? [])")
        #expect(
            asked.withLock { $0 } == [
                "PATCH /svc/Orders(ID=1,IsActiveEntity=true) HTTP/1.1",
                "GET /svc/Orders(ID=1,IsActiveEntity=true)?$select=total HTTP/1.1",
            ])
    }
}
