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
    static let root = "http://cap.test/odata/v4/orders/"
    static let model: ServiceModel = {
        let document = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
            <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/Common.xml">
              <edmx:Include Alias="Common" Namespace="com.sap.vocabularies.Common.v1"/>
            </edmx:Reference>
            <edmx:DataServices><Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Orders"><Key><PropertyRef Name="ID"/><PropertyRef Name="IsActiveEntity"/></Key>
                <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
                <Property Name="title" Type="Edm.String"/>
                <Property Name="note" Type="Edm.String"/>
                <Property Name="total" Type="Edm.Int32"/>
                <Property Name="IsActiveEntity" Type="Edm.Boolean" Nullable="false" DefaultValue="true"/>
              </EntityType>
              <Action Name="draftEdit" IsBound="true" EntitySetPath="in">
                <Parameter Name="in" Type="S.Orders"/><Parameter Name="PreserveChanges" Type="Edm.Boolean"/>
                <ReturnType Type="S.Orders"/></Action>
              <Action Name="draftActivate" IsBound="true" EntitySetPath="in">
                <Parameter Name="in" Type="S.Orders"/><ReturnType Type="S.Orders"/></Action>
              <EntityContainer Name="EntityContainer"><EntitySet Name="Orders" EntityType="S.Orders"/></EntityContainer>
              <Annotations Target="S.EntityContainer/Orders">
                <Annotation Term="Common.DraftRoot"><Record Type="Common.DraftRootType">
                  <PropertyValue Property="ActivationAction" String="S.draftActivate"/>
                  <PropertyValue Property="EditAction" String="S.draftEdit"/>
                </Record></Annotation>
              </Annotations>
              <Annotations Target="S.Orders">
                <Annotation Term="Common.SideEffects" Qualifier="Total"><Record>
                  <PropertyValue Property="SourceProperties"><Collection><PropertyPath>title</PropertyPath>
                  </Collection></PropertyValue>
                  <PropertyValue Property="TargetProperties"><Collection><String>total</String></Collection>
                  </PropertyValue></Record></Annotation>
              </Annotations>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        do { return try EDMXParser.parse(Array(document.utf8)) } catch { fatalError("\(error)") }
    }()

    static let active = EntityKey(
        entitySet: "Orders",
        values: [.init(name: "ID", value: .int(1)), .init(name: "IsActiveEntity", value: .bool(true))])
    static let draft = EntityKey(
        entitySet: "Orders",
        values: [.init(name: "ID", value: .int(1)), .init(name: "IsActiveEntity", value: .bool(false))])
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
        let engine = SyncEngine(
            configuration: SyncEngine.Configuration(serviceRoot: Self.root), cache: cache, transport: transport,
            model: Self.model, clock: ManualClock(autoAdvance: true), random: { 0.5 })
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
