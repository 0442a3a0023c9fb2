import ODataCore
import Testing

/// `Common.SideEffects` of an action (issue 36): its target entities and properties, relative to the entity it is
/// invoked on — inline on a v4 action, in `<Annotations>` aimed at one overload, and at a v2 function import marked
/// `sap:action-for` (paths through `_it`).
@Suite struct SideEffectsTests {
    static let version4 = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:Reference Uri="https://example.invalid/Common.xml">
            <edmx:Include Namespace="com.sap.vocabularies.Common.v1" Alias="Common"/>
          </edmx:Reference>
          <edmx:DataServices>
            <Schema Namespace="Garage" Alias="G" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Car">
                <Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                <Property Name="mileage" Type="Edm.Int32"/>
                <NavigationProperty Name="services" Type="Collection(G.Service)"/>
              </EntityType>
              <EntityType Name="Service">
                <Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                <NavigationProperty Name="parts" Type="Collection(G.Service)"/>
              </EntityType>
              <Action Name="RecordService" IsBound="true">
                <Parameter Name="car" Type="G.Car" Nullable="false"/>
                <Annotation Term="Common.SideEffects">
                  <Record>
                    <PropertyValue Property="TargetEntities">
                      <Collection>
                        <NavigationPropertyPath>car/services</NavigationPropertyPath>
                        <NavigationPropertyPath>car/services/parts</NavigationPropertyPath>
                        <NavigationPropertyPath>car/services</NavigationPropertyPath>
                      </Collection>
                    </PropertyValue>
                    <PropertyValue Property="TargetProperties">
                      <Collection><PropertyPath>car/mileage</PropertyPath></Collection>
                    </PropertyValue>
                  </Record>
                </Annotation>
              </Action>
              <Action Name="Wash" IsBound="true">
                <Parameter Name="in" Type="G.Car" Nullable="false"/>
              </Action>
              <Action Name="Wash" IsBound="true">
                <Parameter Name="in" Type="G.Service" Nullable="false"/>
              </Action>
              <Annotations Target="G.Wash(G.Car)">
                <Annotation Term="Common.SideEffects" Qualifier="Look">
                  <Record>
                    <PropertyValue Property="TargetProperties">
                      <Collection><String>in/mileage</String></Collection>
                    </PropertyValue>
                  </Record>
                </Annotation>
                <Annotation Term="Common.SideEffects" Qualifier="Log">
                  <Record>
                    <PropertyValue Property="TargetEntities">
                      <Collection>
                        <NavigationPropertyPath>in</NavigationPropertyPath>
                        <NavigationPropertyPath>in/services</NavigationPropertyPath>
                        <NavigationPropertyPath>in/a/b/c/d/e/f/g/h/i</NavigationPropertyPath>
                      </Collection>
                    </PropertyValue>
                  </Record>
                </Annotation>
                <Annotation Term="Common.SideEffects"/>
              </Annotations>
              <EntityContainer Name="Shop">
                <EntitySet Name="Cars" EntityType="G.Car"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    static let version2 = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
            xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
            xmlns:sap="http://www.sap.com/Protocols/SAPData">
          <edmx:DataServices m:DataServiceVersion="2.0">
            <Schema Namespace="SHOP" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
              <EntityType Name="Order">
                <Key><PropertyRef Name="OrderID"/></Key>
                <Property Name="OrderID" Type="Edm.String" Nullable="false"/>
                <NavigationProperty Name="Items" Relationship="SHOP.OrderItems" FromRole="Order" ToRole="Item"/>
              </EntityType>
              <EntityContainer Name="SHOP_Entities" m:IsDefaultEntityContainer="true">
                <EntitySet Name="Orders" EntityType="SHOP.Order"/>
                <FunctionImport Name="Confirm" ReturnType="SHOP.Order" EntitySet="Orders" m:HttpMethod="POST"
                    sap:action-for="SHOP.Order">
                  <Parameter Name="OrderID" Type="Edm.String" Mode="In" Nullable="false"/>
                </FunctionImport>
              </EntityContainer>
              <Annotations Target="SHOP.SHOP_Entities/Confirm" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                <Annotation Term="com.sap.vocabularies.Common.v1.SideEffects">
                  <Record>
                    <PropertyValue Property="TargetEntities">
                      <Collection><NavigationPropertyPath>_it/Items</NavigationPropertyPath></Collection>
                    </PropertyValue>
                  </Record>
                </Annotation>
              </Annotations>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func an_inline_annotation_names_paths_from_the_bound_entity_once_each() throws {
        let model = try EDMXParser.parse(Self.version4)
        let record = try #require(model.operation(named: "Garage.RecordService", boundTo: "Garage.Car"))
        let effects = try #require(record.sideEffects)
        #expect(effects.targetEntities == ["services", "services/parts"])
        #expect(effects.targetProperties == ["mileage"])
        #expect(effects.navigationPaths == [["services"], ["services", "parts"]])
    }

    @Test func qualified_annotations_aimed_at_one_overload_add_up_and_reach_it_alone() throws {
        let model = try EDMXParser.parse(Self.version4)
        let onCar = try #require(model.operation(named: "Garage.Wash", boundTo: "Garage.Car"))
        let effects = try #require(onCar.sideEffects)
        #expect(effects.targetProperties == ["mileage"])
        // `in` alone is the car itself; a path deeper than eight segments is passed over.
        #expect(effects.targetEntities == ["", "services"])
        #expect(effects.navigationPaths == [["services"]])
        let onService = try #require(model.operation(named: "Garage.Wash", boundTo: "Garage.Service"))
        #expect(onService.sideEffects == nil)
    }

    @Test func a_version2_action_for_import_names_its_targets_through_it() throws {
        let model = try EDMXParser.parse(Self.version2)
        let confirm = try #require(model.operations.first { $0.name == "Confirm" })
        #expect(confirm.sideEffects?.targetEntities == ["Items"])
        #expect(confirm.sideEffects?.navigationPaths == [["Items"]])
    }

    @Test func relative_paths_keep_those_that_do_not_start_with_the_binding() {
        let effects = SideEffects(targetEntities: ["it/a", "it", "other/b", "itself"], targetProperties: ["it/x"])
        let relative = effects.relative(to: "it")
        #expect(relative.targetEntities == ["a", "", "other/b", "itself"])
        #expect(relative.targetProperties == ["x"])
        #expect(effects.relative(to: nil) == effects)
    }

    @Test func absolute_targets_name_entity_sets_and_are_no_navigation_from_the_row() {
        let effects = SideEffects(
            targetEntities: ["/NS.Container/Makes", "/Container/Cars/PersonCar", "/Parts", "services", "", "/Makes"])
        let known: Set = ["Makes", "Cars", "Parts"]
        let targets = effects.absoluteTargets(known: known.contains)
        #expect(targets.map(\.set) == ["Makes", "Cars", "Parts"])
        #expect(targets.map(\.navigation) == [[], ["PersonCar"], []])
        // (a set's name first, then a navigation from it)
        let onward = SideEffects(targetEntities: ["/Cars/Makes"]).absoluteTargets(known: known.contains)
        #expect(onward.map(\.set) == ["Cars"] && onward.map(\.navigation) == [["Makes"]])
        #expect(SideEffects(targetEntities: ["/C/Nowhere"]).absoluteTargets(known: known.contains).isEmpty)
        #expect(effects.navigationPaths == [["services"]])
        #expect(SideEffects(targetEntities: ["services/parts"]).absoluteTargets(known: known.contains).isEmpty)
    }
}
