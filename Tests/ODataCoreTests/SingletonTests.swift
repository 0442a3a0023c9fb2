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
}
