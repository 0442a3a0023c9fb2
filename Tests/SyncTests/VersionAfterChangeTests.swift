import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import Sync

/// A change the service answers without its new version (`204` and no `ETag`): the entity is read for it, so the
/// next change goes against the version the service has, not the one the first was sent against (which the service
/// would refuse as if someone else had changed the entity).
@Suite struct VersionAfterChangeTests {
    static let order = EditSideEffectsTests.order
    static let orderURL = EditSideEffectsTests.orderURL

    /// A service whose `PATCH` answers 204 with no version, and whose order is at version `W/"2"` after the first.
    static func service() -> FakeTransport {
        FakeTransport { request, _ in
            switch (request.method, request.url) {
            case (.patch, orderURL):
                return TransportResponse(status: 204)
            case (.get, orderURL):
                return json(#"{"ID":1,"title":"New","note":"Call","total":7,"IsActiveEntity":true}"#, etag: "W/\"2\"")
            default:
                return TransportResponse(status: 404)
            }
        }
    }

    @Test func the_next_change_goes_against_the_version_read_after_a_204_without_one() async throws {
        let transport = Self.service()
        let (engine, cache) = try EditSideEffectsTests().engine(transport)
        // When a change is answered 204 with no ETag
        engine.save(EntityChange(key: Self.order, changes: [.init(name: "note", value: .string("Call"))]))
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().isEmpty })
        // Then the entity was read, and its version is the service's
        #expect(try cache.entity(Self.order)?.etag == "W/\"2\"")
        // And the next change is sent against it
        engine.save(EntityChange(key: Self.order, changes: [.init(name: "note", value: .string("Call again"))]))
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().isEmpty })
        let patches = await transport.requests.filter { $0.method == .patch }
        #expect(patches.map { $0.headers["If-Match"] } == ["W/\"1\"", "W/\"2\""])
        #expect(
            await transport.requests.map { "\($0.method.rawValue)" } == ["PATCH", "GET", "PATCH", "GET"])
    }

    @Test func a_change_answered_with_its_version_reads_nothing_more() async throws {
        let transport = FakeTransport { request, _ in
            request.method == .patch && request.url == Self.orderURL
                ? TransportResponse(status: 204, headers: ["etag": "W/\"5\""]) : TransportResponse(status: 404)
        }
        let (engine, cache) = try EditSideEffectsTests().engine(transport)
        engine.save(EntityChange(key: Self.order, changes: [.init(name: "note", value: .string("Call"))]))
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().isEmpty })
        #expect(try cache.entity(Self.order)?.etag == "W/\"5\"")
        #expect(await transport.requests.map(\.method) == [.patch])
    }
}
