import Testing

@testable import ODataCore

/// Containment (issue 37): entities that live inside others (`ContainsTarget`) have no entity set; the model stands
/// a set named by the path for them (`People/Trips`), each is keyed by the path to it (`People('russell')/Trips(0)`),
/// and that key is the URL it is read, changed and deleted at.
@Suite struct ContainmentTests {
    static let document = """
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
        <edmx:DataServices><Schema Namespace="T" xmlns="http://docs.oasis-open.org/odata/ns/edm">
        <EntityType Name="Person"><Key><PropertyRef Name="userName"/></Key>
          <Property Name="userName" Type="Edm.String" Nullable="false"/>
          <NavigationProperty Name="Trips" Type="Collection(T.Trip)" ContainsTarget="true"/>
          <NavigationProperty Name="Friends" Type="Collection(T.Person)"/></EntityType>
        <EntityType Name="Trip"><Key><PropertyRef Name="tripId"/></Key>
          <Property Name="tripId" Type="Edm.Int32" Nullable="false"/><Property Name="name" Type="Edm.String"/>
          <NavigationProperty Name="PlanItems" Type="Collection(T.PlanItem)" ContainsTarget="true"/>
          <NavigationProperty Name="Airline" Type="T.Airline"/></EntityType>
        <EntityType Name="PlanItem"><Key><PropertyRef Name="itemId"/></Key>
          <Property Name="itemId" Type="Edm.Int32" Nullable="false"/></EntityType>
        <EntityType Name="Airline"><Key><PropertyRef Name="code"/></Key>
          <Property Name="code" Type="Edm.String" Nullable="false"/></EntityType>
        <EntityType Name="Folder"><Key><PropertyRef Name="id"/></Key>
          <Property Name="id" Type="Edm.Int32" Nullable="false"/>
          <NavigationProperty Name="Folders" Type="Collection(T.Folder)" ContainsTarget="true"/></EntityType>
        <EntityContainer Name="C">
          <EntitySet Name="People" EntityType="T.Person">
            <NavigationPropertyBinding Path="Friends" Target="People"/>
            <NavigationPropertyBinding Path="Trips/Airline" Target="Airlines"/></EntitySet>
          <EntitySet Name="Airlines" EntityType="T.Airline"/>
          <EntitySet Name="Partners" EntityType="T.Airline"/>
          <EntitySet Name="Drive" EntityType="T.Folder"/>
        </EntityContainer>
        </Schema></edmx:DataServices></edmx:Edmx>
        """

    static func model() throws -> ServiceModel { try EDMXParser.parse(Array(document.utf8)) }

    @Test func a_containment_navigation_leads_to_a_set_named_by_its_path() throws {
        let model = try Self.model()
        let trips = try #require(model.resolveNavigation("Trips", fromSet: "People"))
        #expect(trips.isContained && trips.isCollection)
        #expect(trips.targetSet == "People/Trips")
        // The trips of one person, and the plan items of one of them, are named by the path to them.
        #expect(model.entitySet(named: "People('russell')/Trips")?.entityType == "T.Trip")
        #expect(model.entityType(ofSet: "People('a/b)')/Trips(3)/PlanItems")?.name == "PlanItem")
        let items = try #require(model.resolveNavigation("PlanItems", fromSet: "People('russell')/Trips"))
        #expect(items.targetSet == "People('russell')/Trips/PlanItems")
        // A contained entity's own navigation is bound on the set at the top of its path (`Trips/Airline`), not
        // guessed among the two sets of airlines.
        #expect(model.resolveNavigation("Airline", fromSet: "People('russell')/Trips")?.targetSet == "Airlines")
        #expect(model.resolveNavigation("Friends", fromSet: "People")?.isContained == false)
        // The sets of the container are listed as before: contained ones are not among them.
        #expect(!model.entitySets.contains { $0.name.contains("/") })
        #expect(model.containedEntitySets.map(\.name).contains("People/Trips/PlanItems"))
    }

    @Test func a_type_that_contains_itself_is_followed_only_so_deep() throws {
        let model = try Self.model()
        let folders = model.containedEntitySets.map(\.name).filter { $0.hasPrefix("Drive/") }
        #expect(folders.count == Containment.deepest)
        #expect(folders.contains("Drive" + String(repeating: "/Folders", count: Containment.deepest)))
        #expect(model.entitySet(named: "Drive" + String(repeating: "/Folders", count: Containment.deepest + 1)) == nil)
    }

    @Test func a_contained_entity_is_keyed_and_addressed_by_the_path_to_it() throws {
        let key = EntityKey(entitySet: "People('a/b')/Trips", value: .int(0))
        #expect(key.canonical == "People('a/b')/Trips(0)")
        #expect(EntityKey(canonical: key.canonical) == key)
        let nested = EntityKey(entitySet: "People('x')/Trips(2)/PlanItems", value: .int(5))
        #expect(EntityKey(canonical: nested.canonical) == nested)
        let urls = ODataURLBuilder(serviceRoot: "http://t.test/", model: try Self.model())
        #expect(urls.url(ResourcePath(key)) == "http://t.test/People('a%2Fb')/Trips(0)")
        #expect(
            urls.url(ResourcePath(nested).appending("Airline"))
                == "http://t.test/People('x')/Trips(2)/PlanItems(5)/Airline")
        #expect(urls.url(ResourcePath(set: "People('a/b')/Trips")) == "http://t.test/People('a%2Fb')/Trips")
        // A relation's key is no entity's: `Person(1)/PersonCar` names a list.
        #expect(EntityKey(canonical: "Person(1)/PersonCar") == nil)
        #expect(EntityKey(canonical: "/Trips(1)") == nil)
        #expect(EntityKey(canonical: "People('x')/Trips(1") == nil)
    }

    @Test func expanded_trips_are_keyed_under_their_person_whatever_order_the_members_come_in() throws {
        let body = """
            {"@odata.context":"http://t.test/$metadata#People","value":[
             {"Trips":[{"tripId":0,"name":"Lisbon","PlanItems":[{"itemId":5}]}],"userName":"russell"},
             {"userName":"scott","Trips":[{"tripId":0,"name":"Kyoto"}]}]}
            """
        let decoder = PayloadDecoder(serviceRoot: "http://t.test/", model: try Self.model())
        guard case .collection(let people) = try decoder.decode(Array(body.utf8), entitySet: "People") else {
            Issue.record("not a collection")
            return
        }
        func trips(_ person: ODataEntity) -> [ODataEntity] {
            guard case .collection(let list)? = person.navigations.first(where: { $0.name == "Trips" })?.content
            else { return [] }
            return list.entities
        }
        let russells = trips(people.entities[0])
        let scotts = trips(people.entities[1])
        #expect(russells.map(\.key?.canonical) == ["People('russell')/Trips(0)"])
        #expect(scotts.map(\.key?.canonical) == ["People('scott')/Trips(0)"])
        #expect(russells.first?.entitySet == "People('russell')/Trips")
        guard
            case .collection(let items)? = russells.first?.navigations.first(where: { $0.name == "PlanItems" })?.content
        else {
            Issue.record("no plan items")
            return
        }
        #expect(items.entities.map(\.key?.canonical) == ["People('russell')/Trips(0)/PlanItems(5)"])
    }

    @Test func a_list_of_one_persons_trips_is_keyed_under_that_person_and_a_person_without_a_key_keeps_none() throws {
        let decoder = PayloadDecoder(serviceRoot: "http://t.test/", model: try Self.model())
        let list = #"{"value":[{"tripId":1,"name":"Oslo"}]}"#
        guard case .collection(let trips) = try decoder.decode(Array(list.utf8), entitySet: "People('russell')/Trips")
        else {
            Issue.record("not a collection")
            return
        }
        #expect(trips.entities.map(\.key?.canonical) == ["People('russell')/Trips(1)"])
        // (a person without a user name: the trips are read, but nothing names them)
        let keyless = #"{"value":[{"Trips":[{"tripId":1}]}]}"#
        guard case .collection(let people) = try decoder.decode(Array(keyless.utf8), entitySet: "People"),
            case .collection(let orphans)? = people.entities.first?.navigations.first?.content
        else {
            Issue.record("not read")
            return
        }
        #expect(orphans.entities.count == 1 && orphans.entities[0].key == nil)
    }
}
