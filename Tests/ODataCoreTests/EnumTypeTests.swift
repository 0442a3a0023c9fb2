import ODataCore
import Testing

/// v4 enum types (issue 37): members read with their values (counted on where a member gives none), a property of
/// one keeps them, typed names matched without regard to case, flags several at once; a filter writes a member as
/// `NS.Type'Member'` and cached rows answer it as the service would.
@Suite struct EnumTypeTests {
    static let metadata = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:DataServices>
            <Schema Namespace="Garage" Alias="G" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EnumType Name="Kind"><Member Name="Annual"/><Member Name="Safety"/><Member Name="Recall" Value="7"/>
                <Member Name="Other"/></EnumType>
              <EnumType Name="Checks" IsFlags="true"><Member Name="Brakes" Value="1"/><Member Name="Lights" Value="2"/>
                <Member Name="Tyres" Value="4"/></EnumType>
              <EntityType Name="Inspection">
                <Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                <Property Name="kind" Type="G.Kind"/>
                <Property Name="checks" Type="Garage.Checks"/>
                <Property Name="note" Type="Edm.String"/>
              </EntityType>
              <EntityContainer Name="C"><EntitySet Name="Inspections" EntityType="Garage.Inspection"/></EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func a_property_of_an_enum_type_keeps_its_members() throws {
        let type = try #require(try EDMXParser.parse(Array(Self.metadata.utf8)).entityType(ofSet: "Inspections"))
        let kind = try #require(type.properties.first { $0.name == "kind" }?.enumeration)
        #expect(kind.qualifiedName == "Garage.Kind" && !kind.isFlags)
        #expect(kind.members.map(\.name) == ["Annual", "Safety", "Recall", "Other"])
        #expect(kind.members.map(\.value) == [0, 1, 7, 8])
        #expect(type.properties.first { $0.name == "kind" }?.type == .primitive(.string))
        #expect(type.properties.first { $0.name == "checks" }?.enumeration?.isFlags == true)
        #expect(type.properties.first { $0.name == "note" }?.enumeration == nil)
    }

    @Test func typed_names_are_members_without_regard_to_case_and_flags_come_in_the_types_order() throws {
        let type = try #require(try EDMXParser.parse(Array(Self.metadata.utf8)).entityType(ofSet: "Inspections"))
        let kind = try #require(type.properties.first { $0.name == "kind" }?.enumeration)
        let checks = try #require(type.properties.first { $0.name == "checks" }?.enumeration)
        #expect(kind.members(in: "safety") == ["Safety"])
        #expect(kind.members(in: "7") == ["Recall"])
        #expect(kind.members(in: "Annual,Safety") == nil)  // not flags
        #expect(kind.members(in: "Bogus") == nil)
        #expect(checks.members(in: "tyres, BRAKES") == ["Brakes", "Tyres"])
        #expect(checks.members(in: "Brakes, Horn") == nil)
        // (flags as one number: the members whose bits it holds, every bit a member's)
        #expect(checks.members(in: "5") == ["Brakes", "Tyres"])
        #expect(checks.members(in: "8") == nil)
        #expect(kind.literal("Safety") == "Garage.Kind'Safety'")
    }

    @Test func a_member_filter_is_written_with_its_type_and_answered_on_cached_rows() {
        let annual = QueryFilter.member("kind", .eq, "Annual", enumType: "Garage.Kind")
        #expect(annual.text(dialect: .v4) == "kind eq Garage.Kind'Annual'")
        #expect(QueryFilter.member("kind", .ne, "O'Neil", enumType: "G.K").text(dialect: .v4) == "kind ne G.K'O''Neil'")
        #expect(annual.matches { _ in .string("Annual") })
        #expect(!annual.matches { _ in .string("Safety") })
        #expect(!annual.matches { _ in nil })
        let both = QueryFilter.member("checks", .eq, "Brakes,Tyres", enumType: "Garage.Checks")
        #expect(both.matches { _ in .string("Tyres, Brakes") })
        #expect(!both.matches { _ in .string("Brakes") })
        #expect(QueryFilter.member("kind", .ne, "Annual", enumType: "G.K").matches { _ in nil })
        #expect(annual.properties == ["kind"])
    }
}
