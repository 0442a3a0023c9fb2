import ODataCore
import Testing

@testable import Browser

/// `--open` through a containment navigation (issue 37): a contained entity is named by the path through its
/// container, so `People('russell')/Trips(0)` opens that trip of that person, not trip 0 of anyone.
@Suite struct ContainedDeepLinkTests {
    static let model: ServiceModel = {
        let document = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
            <edmx:DataServices><Schema Namespace="T" xmlns="http://docs.oasis-open.org/odata/ns/edm">
            <EntityType Name="Person"><Key><PropertyRef Name="userName"/></Key>
              <Property Name="userName" Type="Edm.String" Nullable="false"/>
              <NavigationProperty Name="Trips" Type="Collection(T.Trip)" ContainsTarget="true"/></EntityType>
            <EntityType Name="Trip"><Key><PropertyRef Name="tripId"/></Key>
              <Property Name="tripId" Type="Edm.Int32" Nullable="false"/>
              <NavigationProperty Name="PlanItems" Type="Collection(T.PlanItem)" ContainsTarget="true"/></EntityType>
            <EntityType Name="PlanItem"><Key><PropertyRef Name="itemId"/></Key>
              <Property Name="itemId" Type="Edm.Int32" Nullable="false"/></EntityType>
            <EntityContainer Name="C"><EntitySet Name="People" EntityType="T.Person"/>
              <Singleton Name="Me" Type="T.Person"/></EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        return try! EDMXParser.parse(Array(document.utf8))
    }()

    func resolve(_ text: String) throws -> DeepLink {
        let model = Self.model
        return try DeepLink.resolve(text, model: model, profile: DisplayProfile.defaults(for: model)).get()
    }

    @Test func a_path_through_a_container_names_the_contained_entity_under_it() throws {
        let russell = EntityKey(entitySet: "People", value: .string("russell"))
        let trip = EntityKey(entitySet: "People('russell')/Trips", value: .int(0))
        #expect(
            try resolve("People('russell')/Trips(0)").steps == [
                .list(set: "People"), .related(parent: russell, path: ["Trips"], title: "Trips"), .detail(trip),
            ])
        // and on through the trip to its own contained plan items
        #expect(
            try resolve("People('russell')/Trips(0)/PlanItems").steps.last
                == .related(parent: trip, path: ["PlanItems"], title: "PlanItems"))
        #expect(
            try resolve("People('russell')/Trips(0)/PlanItems(5)").steps.last
                == .detail(EntityKey(entitySet: "People('russell')/Trips(0)/PlanItems", value: .int(5))))
    }

    @Test func a_singleton_is_named_alone_and_what_it_contains_under_it() throws {
        let me = EntityKey(singleton: "Me")
        #expect(try resolve("Me").steps == [.detail(me)])
        #expect(
            try resolve("Me/Trips(2)").steps == [
                .related(parent: me, path: ["Trips"], title: "Trips"),
                .detail(EntityKey(entitySet: "Me/Trips", value: .int(2))),
            ])
        let keyed = DeepLink.resolve("Me(1)", model: Self.model, profile: DisplayProfile.defaults(for: Self.model))
        #expect(throws: DeepLinkError.self) { try keyed.get() }
    }
}
