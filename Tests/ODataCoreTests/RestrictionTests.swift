import ODataCore
import Testing

/// What a service says it does not filter or sort by (issue 33): v2 `sap:filterable` / `sap:sortable`, v4
/// `Capabilities.FilterRestrictions` / `SortRestrictions` inline on a set or in `<Annotations>`.
@Suite struct RestrictionTests {
    @Test func version_2_properties_say_what_they_are_not_filtered_and_sorted_by() throws {
        let model = try EDMXParser.parse(
            """
            <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
                xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
                xmlns:sap="http://www.sap.com/Protocols/SAPData">
              <edmx:DataServices m:DataServiceVersion="2.0">
                <Schema Namespace="S" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
                  <EntityType Name="Partner">
                    <Key><PropertyRef Name="ID"/></Key>
                    <Property Name="ID" Type="Edm.String" Nullable="false"/>
                    <Property Name="Name" Type="Edm.String" sap:filterable="false"/>
                    <Property Name="Note" Type="Edm.String" sap:sortable="false"/>
                  </EntityType>
                  <EntityContainer Name="C" m:IsDefaultEntityContainer="true">
                    <EntitySet Name="Partners" EntityType="S.Partner"/>
                  </EntityContainer>
                </Schema>
              </edmx:DataServices>
            </edmx:Edmx>
            """)
        #expect(!model.filters("Partners", by: "Name") && model.sorts("Partners", by: "Name"))
        #expect(model.filters("Partners", by: "Note") && !model.sorts("Partners", by: "Note"))
        #expect(model.filters("Partners", by: "ID") && model.sorts("Partners", by: "ID"))
        #expect(model.filters("Elsewhere", by: "Name"))  // what it does not describe, it does not refuse
    }

    @Test func version_4_capabilities_restrict_a_set_inline_or_from_an_annotations_block() throws {
        let model = try EDMXParser.parse(
            """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
              <edmx:Reference Uri="https://example.invalid/Capabilities.xml">
                <edmx:Include Namespace="Org.OData.Capabilities.V1" Alias="Capabilities"/>
              </edmx:Reference>
              <edmx:DataServices>
                <Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                  <EntityType Name="Car">
                    <Key><PropertyRef Name="id"/></Key>
                    <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                    <Property Name="make" Type="Edm.String"/>
                    <Property Name="notes" Type="Edm.String"/>
                  </EntityType>
                  <EntityContainer Name="C">
                    <EntitySet Name="Cars" EntityType="S.Car">
                      <Annotation Term="Capabilities.FilterRestrictions">
                        <Record>
                          <PropertyValue Property="NonFilterableProperties">
                            <Collection><PropertyPath>notes</PropertyPath></Collection>
                          </PropertyValue>
                        </Record>
                      </Annotation>
                    </EntitySet>
                    <EntitySet Name="Logs" EntityType="S.Car"/>
                  </EntityContainer>
                  <Annotations Target="S.C/Cars">
                    <Annotation Term="Capabilities.SortRestrictions">
                      <Record>
                        <PropertyValue Property="NonSortableProperties">
                          <Collection><PropertyPath>make</PropertyPath><PropertyPath>notes</PropertyPath></Collection>
                        </PropertyValue>
                      </Record>
                    </Annotation>
                  </Annotations>
                  <Annotations Target="S.C/Logs">
                    <Annotation Term="Capabilities.FilterRestrictions">
                      <Record><PropertyValue Property="Filterable" Bool="false"/></Record>
                    </Annotation>
                  </Annotations>
                </Schema>
              </edmx:DataServices>
            </edmx:Edmx>
            """)
        #expect(model.filters("Cars", by: "make") && !model.filters("Cars", by: "notes"))
        #expect(!model.sorts("Cars", by: "make") && !model.sorts("Cars", by: "notes") && model.sorts("Cars", by: "id"))
        #expect(!model.filters("Logs", by: "make") && model.sorts("Logs", by: "make"))
    }
}

/// `RequiresFilter`, `RequiredProperties`, ascending- and descending-only sorts, and their v2 `sap:` twins.
@Suite struct RequiredFilterTests {
    @Test func a_v4_set_that_requires_a_filter_and_sorts_one_way_says_so() throws {
        let edmx = """
            <?xml version="1.0" encoding="utf-8"?>
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
            <edmx:DataServices><Schema Namespace="T" xmlns="http://docs.oasis-open.org/odata/ns/edm">
            <EntityType Name="Order"><Key><PropertyRef Name="id"/></Key>
            <Property Name="id" Type="Edm.Int32" Nullable="false"/><Property Name="org" Type="Edm.String"/>
            <Property Name="date" Type="Edm.Date"/></EntityType>
            <EntityContainer Name="C"><EntitySet Name="Orders" EntityType="T.Order">
            <Annotation Term="Org.OData.Capabilities.V1.FilterRestrictions"><Record>
            <PropertyValue Property="RequiresFilter" Bool="true"/>
            <PropertyValue Property="RequiredProperties"><Collection><PropertyPath>org</PropertyPath></Collection>
            </PropertyValue></Record></Annotation>
            <Annotation Term="Org.OData.Capabilities.V1.SortRestrictions"><Record>
            <PropertyValue Property="DescendingOnlyProperties"><Collection><PropertyPath>date</PropertyPath>
            </Collection></PropertyValue>
            <PropertyValue Property="AscendingOnlyProperties"><Collection><PropertyPath>org</PropertyPath>
            </Collection></PropertyValue></Record></Annotation>
            </EntitySet><EntitySet Name="Free" EntityType="T.Order"/></EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        let model = try EDMXParser.parse(edmx)
        #expect(model.requiredFilter("Orders") == ["org"])
        #expect(model.requiredFilter("Free") == nil)
        #expect(model.sortDirections("Orders", by: "date") == (false, true))
        #expect(model.sortDirections("Orders", by: "org") == (true, false))
        #expect(model.sortDirections("Orders", by: "id") == (true, true))
        #expect(model.sortDirections("Free", by: "date") == (true, true))
    }

    @Test func a_v2_set_that_requires_a_filter_and_a_property_required_in_it() throws {
        let edmx = """
            <?xml version="1.0" encoding="utf-8"?>
            <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
             xmlns:sap="http://www.sap.com/Protocols/SAPData">
            <edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:DataServiceVersion="2.0">
            <Schema Namespace="T" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
            <EntityType Name="Order"><Key><PropertyRef Name="id"/></Key>
            <Property Name="id" Type="Edm.Int32" Nullable="false"/>
            <Property Name="org" Type="Edm.String" sap:required-in-filter="true"/></EntityType>
            <EntityType Name="Note"><Key><PropertyRef Name="id"/></Key><Property Name="id" Type="Edm.Int32" Nullable="false"/>
            </EntityType>
            <EntityContainer Name="C" m:IsDefaultEntityContainer="true">
            <EntitySet Name="Orders" EntityType="T.Order"/>
            <EntitySet Name="Notes" EntityType="T.Note" sap:requires-filter="true"/>
            <EntitySet Name="Others" EntityType="T.Note"/>
            </EntityContainer></Schema></edmx:DataServices></edmx:Edmx>
            """
        let model = try EDMXParser.parse(edmx)
        #expect(model.requiredFilter("Orders") == ["org"])
        #expect(model.requiredFilter("Notes") == [])
        #expect(model.requiredFilter("Others") == nil)
    }
}
