import Testing

@testable import ODataCore

@Suite struct MetadataTests {
    func model() throws -> ServiceModel { try EDMXParser.parse(try fixture("cardealer-metadata.xml")) }

    @Test func entity_sets_types_keys_and_properties_are_read() throws {
        let model = try model()
        #expect(model.dataServiceVersion == "2.0")
        #expect(model.entitySets.map(\.name) == ["Person", "PersonCar", "Car"])
        let person = try #require(model.entityType(ofSet: "Person"))
        #expect(person.qualifiedName == "edmexampleModel.Person")
        #expect(person.key == ["personID"])
        #expect(person.property(named: "personID")?.isNullable == false)
        #expect(person.property(named: "firstName")?.maxLength == 50)
        #expect(person.property(named: "lastName")?.maxLength == nil)
        #expect(person.property(named: "createDate")?.isConcurrencyToken == true)
        #expect(person.property(named: "balance")?.type == .primitive(.decimal))
        #expect(person.property(named: "balance")?.scale == 4)
        #expect(person.property(named: "address")?.type == .named("edmexampleModel.Address"))
        #expect(model.complexTypes["edmexampleModel.Address"]?.properties.count == 2)
        #expect(model.keyTypes(ofEntitySet: "Person") == ["personID": .int32])
    }

    @Test func navigations_resolve_to_their_target_set_and_multiplicity() throws {
        let model = try model()
        let toLinks = try #require(model.resolveNavigation("PersonCar", fromSet: "Person"))
        #expect(toLinks.targetSet == "PersonCar")
        #expect(toLinks.isCollection)
        let toCar = try #require(model.resolveNavigation("Car", fromSet: "PersonCar"))
        #expect(toCar.targetSet == "Car")
        #expect(toCar.multiplicity == .zeroOrOne)
        #expect(model.resolveNavigation("Person", fromSet: "PersonCar")?.multiplicity == .one)
        #expect(model.resolveNavigation("Nope", fromSet: "Person") == nil)
        let constraint = try #require(model.associations["edmexampleModel.FK_PersonCar_Person"]?.referentialConstraint)
        #expect(constraint.principalRole == "Person")
        #expect(constraint.dependentProperties == ["personID"])
    }

    @Test func a_broken_document_gives_an_error_naming_the_line() {
        let text = "<edmx:Edmx>\n<edmx:DataServices>\n<Schema Namespace=\"A\">\n<EntityType Name=\"X\">\n</Schema>"
        #expect {
            try EDMXParser.parse(text)
        } throws: { error in
            let error = error as? MetadataError
            return error?.line == 5 && error?.description.contains("closes <EntityType>") == true
        }
    }

    @Test func a_missing_required_attribute_is_named() {
        let text = """
            <edmx:Edmx><edmx:DataServices><Schema Namespace="A">
            <EntityType><Key/></EntityType></Schema></edmx:DataServices></edmx:Edmx>
            """
        #expect(throws: MetadataError.self) { try EDMXParser.parse(text) }
        do {
            _ = try EDMXParser.parse(text)
        } catch {
            #expect(error.line == 2)
            #expect(error.reason.contains("<EntityType> has no Name"))
        }
    }

    @Test func an_html_page_is_not_metadata() {
        #expect(throws: MetadataError.self) { try EDMXParser.parse("<html><body>Login</body></html>") }
        #expect(throws: MetadataError.self) { try EDMXParser.parse("not xml at all") }
        #expect(throws: MetadataError.self) { try EDMXParser.parse("") }
    }

    @Test func entities_and_character_references_are_decoded() throws {
        let text = """
            <edmx:Edmx><edmx:DataServices><Schema Namespace="N&amp;S">
            <EntityType Name="T&#x41;&#66;"><Key><PropertyRef Name="id"/></Key><Property Name="id" Type="Edm.Guid"/></EntityType>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        let model = try EDMXParser.parse(text)
        #expect(model.entityTypes["N&S.TAB"] != nil)
    }
}
