import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import Sync

/// A set whose `Common.DraftRoot` names a `NewAction` (SAP RAP, issue 36): `a` makes the new entity's draft with
/// that action, bound to the set, passing the values its parameters name; the draft then takes every value and is
/// activated, once each. A refusal of the action is the create's refusal, in the service's words.
@Suite struct NewDraftActionTests {
    static let root = DraftOrders.root
    static let model: ServiceModel = {
        let document = DraftOrders.document
            .replacingOccurrences(
                of: "<EntityContainer",
                with: """
                    <Action Name="OrdersNew" IsBound="true" EntitySetPath="in">
                      <Parameter Name="in" Type="Collection(S.Orders)"/><Parameter Name="title" Type="Edm.String"/>
                      <ReturnType Type="S.Orders"/></Action>
                    <EntityContainer
                    """
            )
            .replacingOccurrences(
                of: #"<PropertyValue Property="EditAction" String="S.draftEdit"/>"#,
                with: #"<PropertyValue Property="EditAction" String="S.draftEdit"/>"#
                    + #"<PropertyValue Property="NewAction" String="S.OrdersNew"/>"#)
        do { return try EDMXParser.parse(Array(document.utf8)) } catch { fatalError("\(error)") }
    }()
    static let draftURL = root + "Orders(ID=9,IsActiveEntity=false)"

    static func order(active: Bool, title: String) -> TransportResponse {
        json(#"{"ID":9,"title":"\#(title)","note":"x","IsActiveEntity":\#(active)}"#, status: active ? 200 : 201)
    }

    static let creation = EntityCreation(
        entitySet: "Orders",
        properties: [.init(name: "title", value: .string("Brakes")), .init(name: "note", value: .string("x"))],
        addedTo: .list(ListRequest(entitySet: "Orders")))

    func engine(_ transport: FakeTransport) throws -> (SyncEngine, CacheDatabase) {
        let cache = try CacheDatabase()
        let engine = try SyncEngine.forTesting(root: Self.root, transport: transport, model: Self.model, cache: cache)
        return (engine, cache)
    }

    @Test func the_new_action_is_read_from_the_draft_root() throws {
        #expect(Self.model.draftActions(ofSet: "Orders")?.new == "S.OrdersNew")
    }

    @Test func a_new_entity_is_made_by_the_new_action_then_takes_its_values_and_is_activated() async throws {
        let transport = FakeTransport { request, _ in
            switch (request.method, request.url) {
            case (.post, Self.root + "Orders/S.OrdersNew"): return Self.order(active: false, title: "Brakes")
            case (.patch, Self.draftURL): return TransportResponse(status: 204)
            case (.post, Self.draftURL + "/S.draftActivate"): return Self.order(active: true, title: "Brakes")
            default: return TransportResponse(status: 404)
            }
        }
        let (engine, cache) = try engine(transport)
        engine.create(Self.creation)
        await engine.flushIntents()
        #expect(
            try await eventually { try cache.outboxEntries().isEmpty },
            "\((try? cache.outboxEntries())?.map { "\($0.state) \($0.lastError ?? "")" } ?? [])")
        let sent = await transport.requests
        #expect(
            sent.map { "\($0.method.rawValue) \($0.url)" } == [
                "POST \(Self.root)Orders/S.OrdersNew", "PATCH \(Self.draftURL)",
                "POST \(Self.draftURL)/S.draftActivate",
            ])
        // The action was given the values its parameters name; the draft then took them all
        #expect(String(decoding: sent[0].body ?? [], as: UTF8.self) == #"{"title":"Brakes"}"#)
        #expect(String(decoding: sent[1].body ?? [], as: UTF8.self).contains(#""note":"x""#))
        #expect(sent[1].headers["If-Match"] == "*")
        let active = EntityKey(
            entitySet: "Orders",
            values: [.init(name: "ID", value: .int(9)), .init(name: "IsActiveEntity", value: .bool(true))])
        #expect(try cache.entity(active)?["title"] == .string("Brakes"))
    }

    @Test func the_new_actions_refusal_is_the_creates_in_the_services_words() async throws {
        let transport = FakeTransport { request, _ in
            guard request.url == Self.root + "Orders/S.OrdersNew" else { return TransportResponse(status: 404) }
            return json(#"{"error":{"code":"NOPE","message":"Orders cannot be made today"}}"#, status: 400)
        }
        let (engine, cache) = try engine(transport)
        engine.create(Self.creation)
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().first?.state == .failed })
        #expect(try cache.outboxEntries().first?.lastError?.contains("Orders cannot be made today") == true)
        #expect(await transport.requests.count == 1)
    }
}
