import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import Sync

/// An entity type's `Common.SideEffects` (issue 36): when a field kept in the open draft of a form is one of its
/// `SourceProperties`, what it names as targets is read again from the draft (the service answered the `PATCH`
/// without the entity), so the form shows what the service worked out; a field that sets nothing off reads nothing.
@Suite struct DraftSideEffectsTests {
    static let root = DraftOrders.root
    static let model = DraftOrders.model
    static let active = DraftOrders.key(active: true)
    static let draft = DraftOrders.key(active: false)
    static let draftURL = root + "Orders(ID=1,IsActiveEntity=false)"

    /// A service whose `PATCH` of the draft answers 204, and whose draft's total is 42 once its title changed.
    static func service() -> FakeTransport {
        FakeTransport { request, _ in
            switch (request.method, request.url) {
            case (.post, root + "Orders(ID=1,IsActiveEntity=true)/S.draftEdit"):
                return json(#"{"ID":1,"title":"Old","note":"","total":7,"IsActiveEntity":false}"#)
            case (.patch, draftURL): return TransportResponse(status: 204)
            case (.get, draftURL + "?$select=total"): return json(#"{"ID":1,"total":42,"IsActiveEntity":false}"#)
            default: return TransportResponse(status: 404)
            }
        }
    }

    func opened() async throws -> (SyncEngine, CacheDatabase, FakeTransport) {
        let transport = Self.service()
        let cache = try CacheDatabase()
        let engine = try SyncEngine.forTesting(root: Self.root, transport: transport, model: Self.model, cache: cache)
        engine.editDraft(of: Self.active, etag: "W/\"1\"")
        #expect(try await eventually { try cache.entity(Self.draft)?["total"] == .int(7) })
        return (engine, cache, transport)
    }

    @Test func the_side_effects_of_a_type_are_read_with_their_sources() throws {
        let type = try #require(Self.model.entityType(ofSet: "Orders"))
        #expect(type.sideEffects.map(\.sourceProperties) == [["title"]])
        #expect(Self.model.sideEffects(ofSet: "Orders", changing: ["title"])?.targetProperties == ["total"])
        #expect(Self.model.sideEffects(ofSet: "Orders", changing: ["note"]) == nil)
    }

    @Test func a_source_kept_in_the_draft_reads_its_targets_again() async throws {
        let (engine, cache, transport) = try await opened()
        engine.changeDraft(EntityChange(key: Self.active, changes: [.init(name: "title", value: .string("New"))]))
        #expect(try await eventually { try cache.entity(Self.draft)?["total"] == .int(42) })
        #expect(try cache.entity(Self.draft)?["title"] == .string("New"))
        let sent = await transport.requests.map { "\($0.method.rawValue) \($0.url)" }
        #expect(sent.suffix(2) == ["PATCH \(Self.draftURL)", "GET \(Self.draftURL)?$select=total"])
    }

    @Test func a_field_that_sets_nothing_off_reads_nothing() async throws {
        let (engine, cache, transport) = try await opened()
        engine.changeDraft(EntityChange(key: Self.active, changes: [.init(name: "note", value: .string("Call"))]))
        #expect(try await eventually { try cache.entity(Self.draft)?["note"] == .string("Call") })
        await engine.flushIntents()
        #expect(await transport.requests.filter { $0.method == .get }.isEmpty)
        #expect(try cache.entity(Self.draft)?["total"] == .int(7))
    }
}
