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
