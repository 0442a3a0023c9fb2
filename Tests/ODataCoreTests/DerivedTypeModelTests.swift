import Foundation
import Testing

@testable import ODataCore

/// Derived and open types in the model (issue 37): which type an entity is, as its payload names it and its set
/// allows; open types, inherited; a hostile document's cycle of base types, or a chain deeper than the model reads.
@Suite struct DerivedTypeModelTests {
    static func model(_ types: String) throws -> ServiceModel {
        try EDMXParser.parse(
            Array(
                """
                <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
                <edmx:DataServices><Schema Namespace="W" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                \(types)
                <EntityContainer Name="C"><EntitySet Name="Staff" EntityType="W.Employee"/></EntityContainer>
                </Schema></edmx:DataServices></edmx:Edmx>
                """.utf8))
    }

    static let staff = """
        <EntityType Name="Employee" OpenType="true"><Key><PropertyRef Name="id"/></Key>
          <Property Name="id" Type="Edm.Int32" Nullable="false"/></EntityType>
        <EntityType Name="Mechanic" BaseType="W.Employee"><Property Name="speciality" Type="Edm.String"/></EntityType>
        <EntityType Name="Lead" BaseType="W.Mechanic"><Property Name="team" Type="Edm.Int32"/></EntityType>
        <EntityType Name="Invoice"><Key><PropertyRef Name="n"/></Key><Property Name="n" Type="Edm.Int32"/></EntityType>
        """

    @Test func an_entity_is_of_the_type_it_names_when_its_set_can_hold_it() throws {
        let model = try Self.model(Self.staff)
        #expect(model.entityType(named: "W.Lead", inSet: "Staff")?.name == "Lead")
        #expect(model.entityType(named: "W.Mechanic", inSet: "Staff")?.name == "Mechanic")
        // A type the model lacks, one the set cannot hold, or none: the set's
        for named in ["W.Nobody", "W.Invoice", nil] {
            #expect(model.entityType(named: named, inSet: "Staff")?.name == "Employee")
        }
        let lead = try #require(model.entityTypes["W.Lead"])
        #expect(model.properties(of: lead).map(\.name) == ["id", "speciality", "team"])
        #expect(
            model.derivedTypes(of: try #require(model.entityTypes["W.Employee"])).map(\.name) == ["Lead", "Mechanic"])
        // Open, as the type it derives from is
        let invoice = try #require(model.entityTypes["W.Invoice"])
        #expect(model.isOpen(lead) && !model.isOpen(invoice))
    }

    @Test func a_navigation_of_a_derived_type_is_reached_through_a_cast_to_it() throws {
        let model = try Self.model(
            """
            <EntityType Name="Employee"><Key><PropertyRef Name="id"/></Key>
              <Property Name="id" Type="Edm.Int32" Nullable="false"/></EntityType>
            <EntityType Name="Mechanic" BaseType="W.Employee">
              <NavigationProperty Name="Certificates" Type="Collection(W.Certificate)"/>
              <NavigationProperty Name="Mentor" Type="W.Employee"/></EntityType>
            <EntityType Name="Certificate"><Key><PropertyRef Name="n"/></Key>
              <Property Name="n" Type="Edm.Int32" Nullable="false"/>
              <NavigationProperty Name="Holder" Type="W.Employee"/></EntityType>
            """)
        // (the document's one set is Staff; the certificates' set is added here as a second container would)
        var withSets = model
        withSets.containers[0].entitySets.append(EntitySet(name: "Certificates", entityType: "W.Certificate"))
        withSets.indexEntitySets()
        let certificates = try #require(withSets.resolveNavigation("Certificates", fromSet: "Staff"))
        #expect(certificates.declaringType == "W.Mechanic" && certificates.targetSet == "Certificates")
        #expect(withSets.resolveNavigation("Nothing", fromSet: "Staff") == nil)
        let path = ResourcePath(EntityKey(entitySet: "Staff", value: .int(2))).appending("Certificates")
        #expect(withSets.castingDerivedNavigations(path).canonical == "Staff(2)/W.Mechanic/Certificates")
        // A path that casts already is not cast twice; the set's own navigations are not cast
        let cast = ResourcePath(EntityKey(entitySet: "Staff", value: .int(2))).appending("W.Mechanic").appending(
            "Certificates")
        #expect(withSets.castingDerivedNavigations(cast).canonical == "Staff(2)/W.Mechanic/Certificates")
        #expect(
            withSets.castingDerivedExpansions(["Certificates", "Certificates/Holder", "Mentor"], fromSet: "Staff")
                == ["W.Mechanic/Certificates", "W.Mechanic/Certificates/Holder", "W.Mechanic/Mentor"])
        // and so it is sent, v4 nesting the expansions behind the cast
        let urls = ODataURLBuilder(serviceRoot: "http://w.test/", model: withSets)
        #expect(urls.url(path) == "http://w.test/Staff(2)/W.Mechanic/Certificates")
        #expect(
            urls.url(
                ResourcePath(EntityKey(entitySet: "Staff", value: .int(2))),
                QueryOptions(expand: ["Certificates", "Certificates/Holder"]))
                == "http://w.test/Staff(2)?$expand=W.Mechanic/Certificates($expand=Holder)")
    }

    @Test func a_cycle_of_base_types_or_a_chain_past_the_limit_is_cut() throws {
        let cycle = try Self.model(
            """
            <EntityType Name="Employee" BaseType="W.Other"><Key><PropertyRef Name="id"/></Key>
              <Property Name="id" Type="Edm.Int32" Nullable="false"/></EntityType>
            <EntityType Name="Other" BaseType="W.Employee"><Property Name="x" Type="Edm.Int32"/></EntityType>
            """)
        let employee = try #require(cycle.entityTypes["W.Employee"])
        #expect(cycle.properties(of: employee).map(\.name) == ["x", "id"])
        #expect(cycle.entityType(named: "W.Other", inSet: "Staff")?.name == "Other")
        // A chain of 100 types: read through its first 32 bases only
        var deep = Self.staff
        deep += #"<EntityType Name="T0" BaseType="W.Employee"><Property Name="p0" Type="Edm.Int32"/></EntityType>"#
        for level in 1..<100 {
            deep +=
                #"<EntityType Name="T\#(level)" BaseType="W.T\#(level - 1)"><Property Name="p\#(level)" Type="Edm.Int32"/></EntityType>"#
        }
        let model = try Self.model(deep)
        let bottom = try #require(model.entityTypes["W.T99"])
        #expect(model.properties(of: bottom).count == ServiceModel.deepestDerivation + 1)
        // (so a type deeper than that is not taken for one of the set's)
        #expect(model.entityType(named: "W.T99", inSet: "Staff")?.name == "Employee")
        #expect(model.entityType(named: "W.T10", inSet: "Staff")?.name == "T10")
    }

    @Test func a_payload_naming_a_type_its_set_cannot_hold_is_read_by_the_sets_type() throws {
        let model = try Self.model(Self.staff + "")
        let decoder = PayloadDecoder(serviceRoot: "http://w.test/", model: model)
        let body =
            ##"{"@odata.context":"$metadata#Staff","value":["##
            + ##"{"@odata.type":"#W.Invoice","id":1,"n":"not a number"},"##
            + ##"{"@odata.type":"#W.Mechanic","id":2,"speciality":"Brakes"}]}"##
        guard case .collection(let page) = try decoder.decode(Array(body.utf8), entitySet: "Staff") else {
            Issue.record("not a list")
            return
        }
        // (read as an Invoice, "n" would be refused as not a number)
        #expect(page.entities.map(\.key?.canonical) == ["Staff(1)", "Staff(2)"])
        #expect(page.entities[0]["n"] == .string("not a number"))
        #expect(page.entities[1]["speciality"] == .string("Brakes"))
        #expect(page.entities[1].metadata.type == "W.Mechanic")
    }

    @Test func a_type_cast_answer_gives_its_entities_the_type_its_context_names() throws {
        let model = try Self.model(Self.staff)
        let decoder = PayloadDecoder(serviceRoot: "http://w.test/", model: model)
        let cast =
            ##"{"@odata.context":"http://w.test/$metadata#Staff/W.Mechanic","value":["##
            + ##"{"id":2,"speciality":"Brakes"},{"@odata.type":"#W.Lead","id":3,"team":7}]}"##
        guard case .collection(let page) = try decoder.decode(Array(cast.utf8), entitySet: "Staff") else {
            Issue.record("not a list")
            return
        }
        // (an entity's own @odata.type still wins)
        #expect(page.entities.map(\.metadata.type) == ["W.Mechanic", "W.Lead"])
        #expect(page.entities[1]["team"] == .int(7))
        // A context naming a type the set cannot hold: the entities are read by the set's type
        let hostile = ##"{"@odata.context":"$metadata#Staff/W.Invoice/$entity","id":4,"n":"x"}"##
        guard case .entity(let entity) = try decoder.decode(Array(hostile.utf8), entitySet: "Staff") else {
            Issue.record("not an entity")
            return
        }
        #expect(entity["n"] == .string("x"))
        #expect(model.entityType(named: entity.metadata.type, inSet: "Staff")?.name == "Employee")
        #expect(model.castType("W.Mechanic", onSet: "Staff")?.name == "Mechanic")
        #expect(
            model.castType("W.Invoice", onSet: "Staff") == nil && model.castType("W.Employee", onSet: "Staff") == nil)
    }
}
