import ODataCore
import Testing

/// Where a function that answers one thing (an entity or a value) is read (issue 36): unbound or bound to one
/// entity, in both dialects, keyed like a listing call.
@Suite struct OperationCallTests {
    static let version4 = """
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:DataServices>
            <Schema Namespace="Garage" Alias="G" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Car"><Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/></EntityType>
              <ComplexType Name="Cost"><Property Name="amount" Type="Edm.Decimal"/></ComplexType>
              <Function Name="Describe" IsBound="true">
                <Parameter Name="car" Type="G.Car" Nullable="false"/><ReturnType Type="Edm.String"/>
              </Function>
              <Function Name="TotalCost" IsBound="true">
                <Parameter Name="car" Type="G.Car" Nullable="false"/>
                <Parameter Name="year" Type="Edm.Int32" Nullable="false"/>
                <ReturnType Type="G.Cost"/>
              </Function>
              <Function Name="Newest"><ReturnType Type="G.Car"/></Function>
              <Function Name="Costs"><ReturnType Type="Collection(G.Cost)"/></Function>
              <Function Name="All"><ReturnType Type="Collection(G.Car)"/></Function>
              <Action Name="Reset"/>
              <EntityContainer Name="Container">
                <EntitySet Name="Cars" EntityType="G.Car"/>
                <FunctionImport Name="Newest" Function="G.Newest" EntitySet="Cars"/>
                <FunctionImport Name="Costs" Function="G.Costs"/>
                <FunctionImport Name="All" Function="G.All" EntitySet="Cars"/>
                <ActionImport Name="Reset" Action="G.Reset"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    func operation(_ model: ServiceModel, _ name: String) throws -> ServiceOperation {
        try #require(model.operations.first { $0.name == name })
    }

    @Test func functions_answering_one_thing_are_told_from_those_answering_a_list_and_from_actions() throws {
        let model = try EDMXParser.parse(Self.version4)
        #expect(try operation(model, "Garage.Describe").answersOne)
        #expect(try operation(model, "Garage.TotalCost").answersOne)
        #expect(try operation(model, "Newest").answersOne)
        #expect(try operation(model, "Costs").answersOne)  // records: values
        #expect(try !operation(model, "All").answersOne && operation(model, "All").listsEntities)
        #expect(try !operation(model, "Reset").answersOne)
    }

    @Test func a_bound_call_is_read_below_its_entity_and_an_unbound_one_at_the_root() throws {
        let model = try EDMXParser.parse(Self.version4)
        let car = EntityKey(entitySet: "Cars", value: .int(7))
        let described = try OperationRequestBuilder.call(
            try operation(model, "Garage.Describe"), arguments: [], on: car)
        #expect(described.path.canonical == "Cars(7)/Garage.Describe()" && described.parameters.isEmpty)
        let cost = try OperationRequestBuilder.call(
            try operation(model, "Garage.TotalCost"), arguments: [.init(name: "year", value: .int(2024))], on: car)
        #expect(cost.path.canonical == "Cars(7)/Garage.TotalCost(year=@year)")
        #expect(cost.parameters.map(\.name) == ["@year"] && cost.parameters.map(\.value) == ["2024"])
        let builder = ODataURLBuilder(serviceRoot: "http://h/S/", dialect: .v4)
        var options = QueryOptions()
        options.custom = cost.parameters
        #expect(builder.url(cost.path, options) == "http://h/S/Cars(7)/Garage.TotalCost(year=@year)?@year=2024")
        // A bound one needs its entity; a required parameter left out is a sentence
        #expect(throws: OperationCallError.self) {
            try OperationRequestBuilder.call(try operation(model, "Garage.Describe"), arguments: [])
        }
        #expect(throws: OperationCallError.self) {
            try OperationRequestBuilder.call(try operation(model, "Garage.TotalCost"), arguments: [], on: car)
        }
    }

    @Test func a_version_2_function_for_an_entity_takes_its_key_as_parameters() throws {
        var describe = ServiceOperation(
            kind: .function, name: "DescribeCar",
            parameters: [
                .init(name: "CarID", type: .primitive(.string), isNullable: false),
                .init(name: "Lang", type: .primitive(.string)),
            ],
            returnType: .primitive(.string), method: .get, dialect: .v2)
        describe.boundType = "S.Car"
        #expect(describe.answersOne)
        let call = try OperationRequestBuilder.call(
            describe, arguments: [.init(name: "Lang", value: .string("de"))],
            on: EntityKey(entitySet: "Cars", value: .string("C-1")), keyNames: ["CarID"])
        #expect(call.path.canonical == "DescribeCar")
        #expect(call.parameters.map(\.name) == ["CarID", "Lang"] && call.parameters.map(\.value) == ["'C-1'", "'de'"])
        // The key typed as the parameter that takes it (an Int64 key is `5L` in v2)
        describe.parameters[0].type = .primitive(.int64)
        let typed = try OperationRequestBuilder.call(
            describe, arguments: [], on: EntityKey(entitySet: "Cars", value: .int(5)), keyNames: ["CarID"])
        #expect(typed.parameters.map(\.value) == ["5L"])
    }
}
