import ODataCore
import Testing

/// What an operation's parameters' annotations say (issue 36): `Common.ValueList` (value help, its
/// `LocalDataProperty` naming the parameter), `Common.ValueListWithFixedValues` and `Core.OptionalParameter`'s
/// `DefaultValue` — inline on the parameter, or in `<Annotations>` aimed at one overload's parameter.
@Suite struct OperationParameterHelpTests {
    static let document = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:Reference Uri="https://example.invalid/Core.xml">
            <edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/>
          </edmx:Reference>
          <edmx:Reference Uri="https://example.invalid/Common.xml">
            <edmx:Include Namespace="com.sap.vocabularies.Common.v1" Alias="Common"/>
          </edmx:Reference>
          <edmx:DataServices>
            <Schema Namespace="Garage" Alias="G" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Car">
                <Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/>
              </EntityType>
              <EntityType Name="Make">
                <Key><PropertyRef Name="name"/></Key>
                <Property Name="name" Type="Edm.String" Nullable="false"/>
              </EntityType>
              <Action Name="Repaint" IsBound="true">
                <Parameter Name="car" Type="G.Car" Nullable="false"/>
                <Parameter Name="make" Type="Edm.String">
                  <Annotation Term="Common.ValueList">
                    <Record>
                      <PropertyValue Property="CollectionPath" String="Makes"/>
                      <PropertyValue Property="Parameters">
                        <Collection>
                          <Record Type="Common.ValueListParameterInOut">
                            <PropertyValue Property="LocalDataProperty" PropertyPath="make"/>
                            <PropertyValue Property="ValueListProperty" String="name"/>
                          </Record>
                        </Collection>
                      </PropertyValue>
                    </Record>
                  </Annotation>
                  <Annotation Term="Common.ValueListWithFixedValues"/>
                  <Annotation Term="Core.OptionalParameter">
                    <Record><PropertyValue Property="DefaultValue" String="Skoda"/></Record>
                  </Annotation>
                </Parameter>
                <Parameter Name="coats" Type="Edm.Int32"/>
              </Action>
              <EntityContainer Name="Container">
                <EntitySet Name="Cars" EntityType="G.Car"/>
                <EntitySet Name="Makes" EntityType="G.Make"/>
              </EntityContainer>
              <Annotations Target="G.Repaint(G.Car)/coats">
                <Annotation Term="Core.OptionalParameter">
                  <Record><PropertyValue Property="DefaultValue" String="2"/></Record>
                </Annotation>
              </Annotations>
              <Annotations Target="G.Repaint(G.Make)/coats">
                <Annotation Term="Core.OptionalParameter">
                  <Record><PropertyValue Property="DefaultValue" String="9"/></Record>
                </Annotation>
              </Annotations>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func a_parameters_value_list_fixed_values_and_default_are_read_inline_and_from_annotations_blocks() throws {
        let model = try EDMXParser.parse(Self.document)
        let repaint = try #require(model.operations.first { $0.name == "Garage.Repaint" })
        let make = try #require(repaint.parameters.first { $0.name == "make" })
        #expect(make.valueList?.collectionPath == "Makes")
        #expect(make.valueList?.outputs.map(\.local) == ["make"] && make.valueList?.outputs.map(\.from) == ["name"])
        #expect(make.hasFixedValues && make.defaultValue == "Skoda")
        // The block aimed at this overload's parameter, not the one aimed at another binding type
        let coats = try #require(repaint.parameters.first { $0.name == "coats" })
        #expect(coats.defaultValue == "2" && coats.valueList == nil && !coats.hasFixedValues)
    }
}

/// An operation's parameter of an enum type (issue 37): written as the service spells a member in a v4 URL
/// (`NS.Type'Member'`, flags with commas), as the member's name in an action's body.
@Suite struct EnumParameterTests {
    static let document = """
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:DataServices>
            <Schema Namespace="Garage" Alias="G" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EnumType Name="Kind"><Member Name="Annual" Value="0"/><Member Name="Safety" Value="1"/></EnumType>
              <EnumType Name="Checks" IsFlags="true">
                <Member Name="Brakes" Value="1"/><Member Name="Lights" Value="2"/>
              </EnumType>
              <EntityType Name="Car"><Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/></EntityType>
              <Function Name="OfKind">
                <Parameter Name="kind" Type="G.Kind" Nullable="false"/>
                <Parameter Name="checks" Type="Garage.Checks"/>
                <ReturnType Type="Collection(G.Car)"/>
              </Function>
              <Action Name="Inspect" IsBound="true">
                <Parameter Name="car" Type="G.Car" Nullable="false"/>
                <Parameter Name="kind" Type="G.Kind" Nullable="false"/>
              </Action>
              <EntityContainer Name="Container">
                <EntitySet Name="Cars" EntityType="G.Car"/>
                <FunctionImport Name="OfKind" Function="G.OfKind" EntitySet="Cars"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func an_enum_parameter_is_a_member_in_the_url_and_in_the_body() throws {
        let model = try EDMXParser.parse(Self.document)
        let ofKind = try #require(model.operations.first { $0.name == "OfKind" })
        #expect(ofKind.parameters.map { $0.enumeration?.qualifiedName } == ["Garage.Kind", "Garage.Checks"])
        #expect(ofKind.parameters.allSatisfy { $0.primitiveType == .string })
        let builder = OperationRequestBuilder(urls: ODataURLBuilder(serviceRoot: "http://h/S/", dialect: .v4))
        let call = try builder.request(
            ofKind,
            arguments: [
                .init(name: "kind", value: .string("Safety")), .init(name: "checks", value: .string("Brakes,Lights")),
            ])
        #expect(
            call.url
                == "http://h/S/OfKind(kind=@kind,checks=@checks)?@kind=Garage.Kind'Safety'"
                + "&@checks=Garage.Checks'Brakes,Lights'", "\(call.url)")
        // The list a call of it reads is keyed the same way
        let list = try OperationRequestBuilder.resultList(
            ofKind, arguments: [.init(name: "kind", value: .string("Annual"))])
        #expect(list.parameters.map(\.value) == ["Garage.Kind'Annual'", "null"])
        // An action takes the member's name in its JSON body
        let inspect = try #require(model.operations.first { $0.name == "Garage.Inspect" })
        let sent = try builder.request(
            inspect, arguments: [.init(name: "kind", value: .string("Annual"))],
            on: EntityKey(entitySet: "Cars", value: .int(1)))
        #expect(sent.body.map { String(decoding: $0, as: UTF8.self) } == #"{"kind":"Annual"}"#)
    }
}
