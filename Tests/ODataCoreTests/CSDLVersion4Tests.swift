import Foundation
import ODataCore
import Testing

/// A CSDL v4 `$metadata` (issue 19): the same model a v2 document gives, found through `Type`, `Partner` and
/// `NavigationPropertyBinding` instead of associations, with the v4 annotations a browser needs.
@Suite struct CSDLVersion4Tests {
    static let document = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml">
            <edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/>
          </edmx:Reference>
          <edmx:Reference Uri="https://example.invalid/Capabilities.xml">
            <edmx:Include Namespace="Org.OData.Capabilities.V1" Alias="Capabilities"/>
          </edmx:Reference>
          <edmx:Reference Uri="https://example.invalid/Common.xml">
            <edmx:Include Namespace="com.sap.vocabularies.Common.v1" Alias="Common"/>
          </edmx:Reference>
          <edmx:DataServices>
            <Schema Namespace="CarDealer.Model" Alias="self" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <TypeDefinition Name="Mileage" UnderlyingType="Edm.Int32"/>
              <EnumType Name="Fuel"><Member Name="Petrol"/><Member Name="Diesel"/></EnumType>
              <EntityType Name="Person">
                <Key><PropertyRef Name="personID"/></Key>
                <Property Name="personID" Type="Edm.Int64" Nullable="false">
                  <Annotation Term="Core.Computed" Bool="true"/>
                </Property>
                <Property Name="lastName" Type="Edm.String" MaxLength="40"/>
                <Property Name="createDate" Type="Edm.DateTimeOffset"/>
                <NavigationProperty Name="PersonCar" Type="Collection(self.PersonCar)" Partner="Person"/>
              </EntityType>
              <EntityType Name="PersonCar">
                <Key><PropertyRef Name="personCarID"/></Key>
                <Property Name="personCarID" Type="Edm.Int64" Nullable="false"/>
                <NavigationProperty Name="Person" Type="self.Person" Nullable="false" Partner="PersonCar"/>
                <NavigationProperty Name="Car" Type="self.Car" Nullable="false"/>
                <NavigationProperty Name="Notes" Type="Collection(self.Note)" ContainsTarget="true"/>
              </EntityType>
              <EntityType Name="Car">
                <Key><PropertyRef Name="carID"/></Key>
                <Property Name="carID" Type="Edm.Int64" Nullable="false"/>
                <Property Name="make" Type="Edm.String"/>
                <Property Name="fuel" Type="self.Fuel"/>
                <Property Name="mileage" Type="self.Mileage"/>
                <Property Name="vin" Type="Edm.String"/>
              </EntityType>
              <EntityType Name="Note">
                <Key><PropertyRef Name="noteID"/></Key>
                <Property Name="noteID" Type="Edm.Int32" Nullable="false"/>
              </EntityType>
              <EntityContainer Name="Container">
                <EntitySet Name="People" EntityType="self.Person">
                  <NavigationPropertyBinding Path="PersonCar" Target="Ownerships"/>
                </EntitySet>
                <EntitySet Name="Ownerships" EntityType="self.PersonCar">
                  <NavigationPropertyBinding Path="Person" Target="People"/>
                  <NavigationPropertyBinding Path="Car" Target="CarDealer.Model.Container/Cars"/>
                </EntitySet>
                <EntitySet Name="Cars" EntityType="self.Car">
                  <Annotation Term="Capabilities.DeleteRestrictions">
                    <Record><PropertyValue Property="Deletable" Bool="false"/></Record>
                  </Annotation>
                </EntitySet>
              </EntityContainer>
              <Annotations Target="self.Car/vin">
                <Annotation Term="Common.Label" String="Vehicle identification number"/>
                <Annotation Term="Core.Immutable" Bool="true"/>
              </Annotations>
              <Annotations Target="CarDealer.Model.Container/Ownerships">
                <Annotation Term="Capabilities.InsertRestrictions">
                  <Record><PropertyValue Property="Insertable" Bool="false"/></Record>
                </Annotation>
              </Annotations>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func the_version_and_the_sets_and_keys_are_read() throws {
        let model = try EDMXParser.parse(Self.document)
        #expect(model.isVersion4 && model.edmxVersion == "4.0")
        #expect(model.entitySets.map(\.name) == ["People", "Ownerships", "Cars"])
        #expect(model.keyTypes(ofEntitySet: "People") == ["personID": .int64])
        #expect(try !EDMXParser.parse(fixture("cardealer-metadata.xml")).isVersion4)
    }

    @Test func navigation_is_resolved_through_bindings_partners_and_nullability() throws {
        let model = try EDMXParser.parse(Self.document)
        let cars = try #require(model.resolveNavigation("PersonCar", fromSet: "People"))
        #expect(cars.targetSet == "Ownerships" && cars.isCollection && cars.targetType == "CarDealer.Model.PersonCar")
        let owner = try #require(model.resolveNavigation("Person", fromSet: "Ownerships"))
        #expect(owner.targetSet == "People" && owner.multiplicity == .one)
        // A binding to another container's set names it by path
        #expect(model.resolveNavigation("Car", fromSet: "Ownerships")?.targetSet == "Cars")
        // A contained navigation has no entity set of its own: its targets' set is named by the path (issue 37)
        let notes = try #require(model.resolveNavigation("Notes", fromSet: "Ownerships"))
        #expect(notes.isContained && notes.targetSet == "Ownerships/Notes")
        let declared = try #require(model.entityType(ofSet: "Ownerships")?.navigationProperties.first)
        #expect(declared.partner == "PersonCar" && declared.type == "CarDealer.Model.Person" && !declared.isNullable)
    }

    @Test func annotations_type_definitions_and_enums_read_as_a_browser_needs_them() throws {
        let model = try EDMXParser.parse(Self.document)
        let person = try #require(model.entityType(ofSet: "People"))
        let id = try #require(person.property(named: "personID"))
        #expect(!id.isCreatable && !id.isUpdatable)  // Core.Computed
        let car = try #require(model.entityType(ofSet: "Cars"))
        let vin = try #require(car.property(named: "vin"))
        #expect(vin.label == "Vehicle identification number" && vin.isCreatable && !vin.isUpdatable)
        #expect(car.property(named: "mileage")?.type == .primitive(.int32))  // TypeDefinition
        #expect(car.property(named: "fuel")?.type == .primitive(.string))  // EnumType: its member names
        #expect(model.entitySet(named: "Cars")?.isDeletable == false)
        #expect(model.entitySet(named: "Ownerships")?.isCreatable == false)
        #expect(model.entitySet(named: "People")?.isCreatable == true)
    }

    @Test func a_binding_to_a_set_that_does_not_exist_leaves_the_rest_browsable() throws {
        let dangling = Self.document.replacingOccurrences(of: "Target=\"Ownerships\"", with: "Target=\"Gone\"")
        let model = try EDMXParser.parse(dangling)
        #expect(model.resolveNavigation("PersonCar", fromSet: "People") == nil)
        #expect(model.resolveNavigation("Person", fromSet: "Ownerships")?.targetSet == "People")
    }
}

/// A v4 `$metadata` with mistakes a real service ships (issue 19): what can be browsed still is.
@Suite struct CSDLVersion4FlawTests {
    @Test func dangling_bindings_and_unknown_types_leave_the_rest_browsable() throws {
        let model = try EDMXParser.parse(
            """
            <edmx:Edmx Version="4.01" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
            <Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Order"><Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                <Property Name="where" Type="Edm.GeographyPoint"/>
                <Property Name="extra" Type="Vendor.Unknown"/>
                <NavigationProperty Name="Lines" Type="Collection(S.Line)"/>
                <NavigationProperty Name="Ghost" Type="S.Nowhere"/>
              </EntityType>
              <EntityType Name="Line"><Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/></EntityType>
              <EntityContainer Name="C">
                <EntitySet Name="Orders" EntityType="S.Order">
                  <NavigationPropertyBinding Path="Lines" Target="Lines"/>
                  <NavigationPropertyBinding Path="Ghost" Target="NoSuchSet"/>
                </EntitySet>
                <EntitySet Name="Lines" EntityType="S.Line"/>
              </EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """)
        #expect(model.dialect == .v4)
        // The good navigation leads where it should; the dangling one leads nowhere rather than failing
        #expect(model.resolveNavigation("Lines", fromSet: "Orders")?.targetSet == "Lines")
        #expect(model.resolveNavigation("Ghost", fromSet: "Orders")?.targetSet == nil)
        // Unknown types are kept by name (shown as they come), the known ones typed
        let order = try #require(model.entityType(ofSet: "Orders"))
        let types = Dictionary(uniqueKeysWithValues: model.properties(of: order).map { ($0.name, $0.type) })
        #expect(types["id"] == .primitive(.int32))
        #expect(types["where"] == .unknown("Edm.GeographyPoint"))
        #expect(types["extra"] == .named("Vendor.Unknown"))
        // and a payload with them decodes, the unknown values untyped
        let payload = try PayloadDecoder(serviceRoot: "http://h/", model: model).decode(
            Array(#"{"value":[{"id":1,"where":{"type":"Point","coordinates":[1,2]},"extra":"x"}]}"#.utf8),
            entitySet: "Orders")
        guard case .collection(let orders) = payload else {
            Issue.record("not a collection")
            return
        }
        #expect(orders.entities.first?.key == EntityKey(entitySet: "Orders", value: .int(1)))
        #expect(orders.entities.first?["extra"] == .string("x"))
    }
}
