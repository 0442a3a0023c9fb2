import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import Sync

/// A new entity of a type derived from its set's (issue 37: `a` on a list narrowed with `:type`): it shows at once as
/// that type, its own properties are sent typed as that type declares them, and `@odata.type` says which; the
/// annotation is never a value of the entity in the cache.
@Suite struct DerivedCreateTests {
    static let root = "http://staff.test/svc/"
    static let model: ServiceModel = {
        let document = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
            <edmx:DataServices><Schema Namespace="W" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Employee"><Key><PropertyRef Name="staffID"/></Key>
                <Property Name="staffID" Type="Edm.Int32" Nullable="false"/><Property Name="name" Type="Edm.String"/>
              </EntityType>
              <EntityType Name="Mechanic" BaseType="W.Employee"><Property Name="certified" Type="Edm.Date"/>
              </EntityType>
              <EntityContainer Name="C"><EntitySet Name="Staff" EntityType="W.Employee"/></EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        do { return try EDMXParser.parse(Array(document.utf8)) } catch { fatalError("\(error)") }
    }()

    @Test func a_new_mechanic_is_placed_as_one_and_its_date_goes_as_a_date() async throws {
        let transport = FakeTransport { request, _ in
            json(
                ##"{"@odata.type":"#W.Mechanic","staffID":5,"name":"Gus","certified":"2024-01-31"}"##, status: 201)
        }
        let cache = try CacheDatabase()
        let engine = try SyncEngine.forTesting(root: Self.root, transport: transport, model: Self.model, cache: cache)
        await transport.hold()
        let day = ODataInstant(millisecondsSince1970: 1_706_659_200_000)  // 2024-01-31
        engine.create(
            EntityCreation(
                entitySet: "Staff",
                properties: [
                    .init(name: "@odata.type", value: .string("#W.Mechanic")), .init(name: "staffID", value: .int(5)),
                    .init(name: "name", value: .string("Gus")), .init(name: "certified", value: .dateTime(day)),
                ], addedTo: .list(ListRequest(entitySet: "Staff"))))
        await engine.flushIntents()
        // At once: a mechanic, whose values hold no annotation
        let placed = try #require(
            try cache.listWindow(ListRequest(entitySet: "Staff").key, range: 0..<1).rows.first?.entity)
        #expect(placed.type == "W.Mechanic" && placed.key.isTemporary)
        #expect(placed.properties.allSatisfy { !$0.isInstanceAnnotation } && placed["name"] == .string("Gus"))
        // Sent: its type first, its date as Edm.Date is written
        await transport.release()
        #expect(try await eventually { try cache.outboxEntries().isEmpty })
        let body = String(decoding: await transport.requests.first?.body ?? [], as: UTF8.self)
        #expect(body.hasPrefix(##"{"@odata.type":"#W.Mechanic""##), "\(body)")
        #expect(body.contains(#""certified":"2024-01-31""#), "\(body)")
    }
}
