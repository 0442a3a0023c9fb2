import ODataCore
import Testing

/// v4 singletons in `$metadata` (issue 37): read with their type; one without a name or a type is passed over.
@Suite struct SingletonTests {
    @Test func singletons_are_read_beside_the_sets_and_a_malformed_one_is_passed_over() throws {
        let model = try EDMXParser.parse(
            """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
              <edmx:DataServices>
                <Schema Namespace="Garage" Alias="G" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                  <EntityType Name="Dealer"><Key><PropertyRef Name="id"/></Key>
                    <Property Name="id" Type="Edm.Int32" Nullable="false"/></EntityType>
                  <EntityContainer Name="C">
                    <EntitySet Name="Dealers" EntityType="G.Dealer"/>
                    <Singleton Name="Headquarters" Type="G.Dealer"/>
                    <Singleton Name="Nameless"/>
                    <Singleton Type="G.Dealer"/>
                  </EntityContainer>
                </Schema>
              </edmx:DataServices>
            </edmx:Edmx>
            """)
        #expect(model.singletons == [Singleton(name: "Headquarters", entityType: "Garage.Dealer")])
        #expect(model.entitySets.map(\.name) == ["Dealers"])
    }

    /// TripPin's shape: `Me` holds its trips (containment) and names its friends in the `People` set.
    static let tripPin = """
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:DataServices>
            <Schema Namespace="Trips" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Person"><Key><PropertyRef Name="UserName"/></Key>
                <Property Name="UserName" Type="Edm.String" Nullable="false"/>
                <NavigationProperty Name="Friends" Type="Collection(Trips.Person)"/>
                <NavigationProperty Name="Trips" Type="Collection(Trips.Trip)" ContainsTarget="true"/></EntityType>
              <EntityType Name="Trip"><Key><PropertyRef Name="TripId"/></Key>
                <Property Name="TripId" Type="Edm.Int32" Nullable="false"/>
                <Property Name="Name" Type="Edm.String"/></EntityType>
              <EntityContainer Name="C">
                <EntitySet Name="People" EntityType="Trips.Person">
                  <NavigationPropertyBinding Path="Friends" Target="People"/></EntitySet>
                <Singleton Name="Me" Type="Trips.Person">
                  <NavigationPropertyBinding Path="Friends" Target="People"/></Singleton>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func a_singletons_navigations_lead_where_its_bindings_say_and_its_contained_sets_are_under_it() throws {
        let model = try EDMXParser.parse(Self.tripPin)
        #expect(model.singletons.first?.navigationBindings == ["Friends": "People"])
        let me = try #require(model.entitySet(named: "Me"))
        #expect(me.isSingleton && !me.isCreatable && !me.isDeletable)
        #expect(model.resolveNavigation("Friends", fromSet: "Me")?.targetSet == "People")
        let trips = try #require(model.resolveNavigation("Trips", fromSet: "Me"))
        #expect(trips.isContained && trips.targetSet == "Me/Trips")
        #expect(model.entitySet(named: "Me/Trips")?.containment?.parent == "Me")
        // (the first screen's list of sets is the container's: the singleton is listed beside them, as before)
        #expect(model.entitySets.map(\.name) == ["People"])
    }

    @Test func a_singletons_entity_is_keyed_and_addressed_by_its_name_and_what_it_holds_under_it() throws {
        let me = EntityKey(singleton: "Me")
        #expect(me.canonical == "Me" && me.isSingleton)
        // (the cache reads it back; text from elsewhere naming a set alone is no key)
        #expect(EntityKey(stored: "Me") == me && EntityKey(canonical: "Me") == nil)
        #expect(EntityKey(stored: "Person(1)") == EntityKey(entitySet: "Person", value: .int(1)))
        #expect(ResourcePath(me).description == "Me")
        let trip = try #require(EntityKey(canonical: "Me/Trips(2)"))
        #expect(trip.entitySet == "Me/Trips" && trip.values.map(\.value) == [.int(2)])
        #expect(ResourcePath(trip).description == "Me/Trips(2)")
        // An entity set's keys are as they were.
        #expect(EntityKey(canonical: "People('russell')")?.isSingleton == false)
        #expect(EntityKey(canonical: "Me(") == nil && EntityKey(canonical: "") == nil)
    }

    @Test func a_singletons_payload_is_keyed_by_the_singleton_and_its_contained_entities_under_it() throws {
        let model = try EDMXParser.parse(Self.tripPin)
        let body = #"""
            {"@odata.context":"$metadata#Me","UserName":"russell",
             "Trips":[{"TripId":2,"Name":"Lisbon"}],"Friends":[{"UserName":"scott"}]}
            """#
        let decoded = try PayloadDecoder(serviceRoot: "http://x/", model: model).decode(
            Array(body.utf8), entitySet: "Me")
        guard case .entity(let entity) = decoded else {
            Issue.record("not an entity: \(decoded)")
            return
        }
        #expect(entity.key == EntityKey(singleton: "Me"))
        var keys: [String: [String]] = [:]
        for link in entity.navigations {
            if case .collection(let held) = link.content {
                keys[link.name] = held.entities.compactMap(\.key?.canonical)
            }
        }
        #expect(keys == ["Trips": ["Me/Trips(2)"], "Friends": ["People('scott')"]])
    }

    @Test func a_path_through_a_singleton_names_its_contained_set_and_a_hostile_name_is_no_singleton() throws {
        let model = try EDMXParser.parse(Self.tripPin)
        #expect(model.entitySet(of: try #require(ResourcePath.parse(relative: "Me/Trips"))) == "Me/Trips")
        #expect(model.entitySet(of: try #require(ResourcePath.parse(relative: "Me/Friends"))) == "People")
        // A name that would be another entity's key in the cache is passed over.
        let hostile = Self.tripPin.replacingOccurrences(
            of: #"<Singleton Name="Me""#, with: #"<Singleton Name="People('scott')""#)
        #expect(try EDMXParser.parse(hostile).singletons.isEmpty)
    }
}
