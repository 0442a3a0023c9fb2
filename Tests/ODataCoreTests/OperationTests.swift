import Foundation
import ODataCore
import Testing

/// Operations in `$metadata` and the requests that invoke them (issue 36): v2 function imports, v4 actions and
/// functions, bound and unbound.
@Suite struct OperationTests {
    static let version2 = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
            xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
            xmlns:sap="http://www.sap.com/Protocols/SAPData">
          <edmx:DataServices m:DataServiceVersion="2.0">
            <Schema Namespace="SHOP" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
              <EntityType Name="Order">
                <Key><PropertyRef Name="OrderID"/></Key>
                <Property Name="OrderID" Type="Edm.String" Nullable="false" MaxLength="10"/>
                <Property Name="Confirmable" Type="Edm.Boolean"/>
              </EntityType>
              <EntityContainer Name="SHOP_Entities" m:IsDefaultEntityContainer="true">
                <EntitySet Name="Orders" EntityType="SHOP.Order"/>
                <FunctionImport Name="OrdersDue" ReturnType="Collection(SHOP.Order)" EntitySet="Orders"
                    m:HttpMethod="GET" sap:label="Orders due">
                  <Parameter Name="Days" Type="Edm.Int32" Mode="In" Nullable="false" sap:label="Within days"/>
                  <Parameter Name="Since" Type="Edm.DateTime" Mode="In"/>
                  <Parameter Name="Count" Type="Edm.Int32" Mode="Out"/>
                </FunctionImport>
                <FunctionImport Name="Confirm" ReturnType="SHOP.Order" EntitySet="Orders" m:HttpMethod="POST"
                    sap:action-for="SHOP.Order" sap:applicable-path="Confirmable" sap:label="Confirm order">
                  <Parameter Name="OrderID" Type="Edm.String" Mode="In" Nullable="false" MaxLength="10"/>
                  <Parameter Name="Note" Type="Edm.String" Mode="In"/>
                </FunctionImport>
                <FunctionImport Name="Touch" m:HttpMethod="MERGE"/>
                <FunctionImport/>
              </EntityContainer>
              <Annotations Target="SHOP.SHOP_Entities/Confirm" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                <Annotation Term="com.sap.vocabularies.Common.v1.Label" String="Confirm the order"/>
              </Annotations>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    static let version4 = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:Reference Uri="https://example.invalid/Core.xml">
            <edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/>
          </edmx:Reference>
          <edmx:Reference Uri="https://example.invalid/Common.xml">
            <edmx:Include Namespace="com.sap.vocabularies.Common.v1" Alias="Common"/>
          </edmx:Reference>
          <edmx:Reference Uri="https://example.invalid/UI.xml">
            <edmx:Include Namespace="com.sap.vocabularies.UI.v1" Alias="UI"/>
          </edmx:Reference>
          <edmx:DataServices>
            <Schema Namespace="Garage" Alias="G" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Vehicle">
                <Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                <Property Name="retirable" Type="Edm.Boolean"/>
              </EntityType>
              <EntityType Name="Car" BaseType="G.Vehicle">
                <Property Name="make" Type="Edm.String"/>
              </EntityType>
              <ComplexType Name="Cost"><Property Name="amount" Type="Edm.Decimal"/></ComplexType>
              <Action Name="Retire" IsBound="true">
                <Parameter Name="vehicle" Type="G.Vehicle" Nullable="false"/>
                <Parameter Name="reason" Type="Edm.String"/>
                <Annotation Term="Core.OperationAvailable" Path="vehicle/retirable"/>
              </Action>
              <Function Name="TotalCost" IsBound="true">
                <Parameter Name="car" Type="G.Car"/>
                <Parameter Name="from" Type="Edm.Date" Nullable="false"/>
                <ReturnType Type="G.Cost"/>
              </Function>
              <Function Name="Cheapest" IsBound="true" EntitySetPath="cars">
                <Parameter Name="cars" Type="Collection(G.Car)"/>
                <ReturnType Type="G.Car"/>
              </Function>
              <Function Name="TotalCost" IsBound="true">
                <Parameter Name="cars" Type="Collection(G.Car)"/>
                <Parameter Name="from" Type="Edm.Date" Nullable="false"/>
                <ReturnType Type="G.Cost"/>
              </Function>
              <Action Name="Broken" IsBound="true">
                <Parameter Name="nameless"/>
                <Parameter Name="car" Type="G.Car"/>
              </Action>
              <Function Name="ByMake">
                <Parameter Name="make" Type="Edm.String"/>
                <ReturnType Type="Collection(G.Car)"/>
              </Function>
              <Function Name="Length" IsBound="true">
                <Parameter Name="text" Type="Edm.String"/>
                <ReturnType Type="Edm.Int32"/>
              </Function>
              <Function Name="DueForService" IsComposable="true">
                <Parameter Name="days" Type="Edm.Int32" Nullable="false"/>
                <Parameter Name="where" Type="G.Cost"/>
                <ReturnType Type="Collection(G.Car)"/>
                <Annotation Term="Common.Label" String="Due for service"/>
              </Function>
              <Action Name="ResetDemo"/>
              <Action Name="NotImported"/>
              <EntityContainer Name="Container">
                <EntitySet Name="Cars" EntityType="G.Car"/>
                <FunctionImport Name="CarsDue" Function="G.DueForService" EntitySet="Cars"/>
                <ActionImport Name="Reset" Action="Garage.ResetDemo"/>
                <FunctionImport Name="ByMake" Function="G.ByMake" EntitySet="Cars"/>
                <ActionImport Name="Dangling" Action="Garage.NothingLikeThis"/>
              </EntityContainer>
              <Annotations Target="G.TotalCost(G.Car)">
                <Annotation Term="Common.Label" String="Total cost"/>
              </Annotations>
              <Annotations Target="Garage.TotalCost(Garage.Car)/from">
                <Annotation Term="Common.Label" String="From"/>
              </Annotations>
              <Annotations Target="G.Car">
                <Annotation Term="UI.LineItem">
                  <Collection>
                    <Record Type="UI.DataField"><PropertyValue Property="Value" Path="make"/></Record>
                    <Record Type="UI.DataFieldForAction">
                      <PropertyValue Property="Label" String="Retire it"/>
                      <PropertyValue Property="Action" String="Garage.Retire"/>
                      <PropertyValue Property="Inline" Bool="true"/>
                    </Record>
                    <Record Type="UI.DataFieldForAction"><PropertyValue Property="Label" String="No action named"/></Record>
                  </Collection>
                </Annotation>
                <Annotation Term="UI.Identification">
                  <Collection>
                    <Record Type="UI.DataFieldForAction">
                      <PropertyValue Property="Action" String="Garage.Container/Reset"/>
                      <PropertyValue Property="Determining" Bool="true"/>
                    </Record>
                  </Collection>
                </Annotation>
              </Annotations>
              <Annotations Target="Garage.Container/Reset">
                <Annotation Term="Common.Label" String="Reset the demo"/>
              </Annotations>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    func operation(_ model: ServiceModel, _ name: String) throws -> ServiceOperation {
        try #require(model.operations.first { $0.name == name }, "no \(name) among \(model.operations.map(\.name))")
    }

    @Test func version_2_function_imports_are_functions_or_actions_by_their_verb() throws {
        let model = try EDMXParser.parse(Self.version2)
        #expect(model.operations.map(\.name) == ["OrdersDue", "Confirm", "Touch"])  // the nameless one passed over
        let due = try operation(model, "OrdersDue")
        #expect(due.kind == .function && due.method == .get && !due.isBound)
        #expect(due.parameters.map(\.name) == ["Days", "Since"])  // an Out parameter is no input
        #expect(due.parameters.first?.label == "Within days" && due.parameters.first?.isNullable == false)
        #expect(due.returnType == .collection(.named("SHOP.Order")) && due.entitySet == "Orders")
        #expect(due.displayName == "Orders due")
        let confirm = try operation(model, "Confirm")
        #expect(confirm.kind == .action && confirm.method == .post)
        #expect(confirm.boundType == "SHOP.Order" && confirm.availability == .path("Confirmable"))
        #expect(confirm.label == "Confirm the order")  // from <Annotations Target="Container/Import">
        // A verb this client does not know has effects: an action, sent with that verb
        let touch = try operation(model, "Touch")
        #expect(touch.kind == .action && touch.method == .merge)
        #expect(model.unboundOperations.map(\.name) == ["OrdersDue", "Touch"])
        #expect(model.operations(boundTo: "SHOP.Order").map(\.name) == ["Confirm"])
        // The key comes from the order it is invoked on: the form asks only for the note
        #expect(confirm.inputs(keyNames: ["OrderID"]).map(\.name) == ["Note"])
    }

    @Test func version_4_bound_operations_and_imported_unbound_ones() throws {
        let model = try EDMXParser.parse(Self.version4)
        // (Broken's first parameter has no type: it binds nothing, so it is passed over)
        #expect(
            Set(model.operations.map(\.name)) == [
                "Garage.Retire", "Garage.TotalCost", "Garage.Cheapest", "CarsDue", "Reset", "ByMake",
            ])
        let retire = try operation(model, "Garage.Retire")
        #expect(retire.kind == .action && retire.method == .post && retire.bindingParameter == "vehicle")
        #expect(retire.boundType == "Garage.Vehicle" && !retire.isBoundToCollection)
        #expect(retire.parameters.map(\.name) == ["reason"])
        #expect(retire.availability == .path("retirable"))  // the bound entity's property, as in v2
        let cost = try #require(model.operations.first { $0.name == "Garage.TotalCost" && !$0.isBoundToCollection })
        #expect(cost.kind == .function && cost.returnType == .named("Garage.Cost"))
        #expect(cost.label == "Total cost" && cost.parameters.first?.label == "From")
        // The overload on a list of cars is not the one those annotations name
        let costs = try #require(model.operations.first { $0.name == "Garage.TotalCost" && $0.isBoundToCollection })
        #expect(costs.label == nil && costs.parameters.first?.label == nil)
        let cheapest = try operation(model, "Garage.Cheapest")
        #expect(cheapest.isBoundToCollection && cheapest.entitySetPath == "cars")
        let due = try operation(model, "CarsDue")
        #expect(due.qualifiedName == "Garage.DueForService" && due.entitySet == "Cars" && due.isComposable)
        #expect(due.displayName == "Due for service" && !due.isBound)
        #expect(try operation(model, "Reset").label == "Reset the demo")
        // On a car: what is bound to cars and to vehicles (its base type), not what is bound to lists of them
        #expect(Set(model.operations(boundTo: "Garage.Car").map(\.name)) == ["Garage.Retire", "Garage.TotalCost"])
        #expect(
            Set(model.operations(boundTo: "Garage.Car", collection: true).map(\.name)) == [
                "Garage.Cheapest", "Garage.TotalCost",
            ])
        #expect(Set(model.unboundOperations.map(\.name)) == ["CarsDue", "Reset", "ByMake"])
    }

    @Test func ui_annotations_say_which_operations_to_offer_on_a_row_and_on_an_entity() throws {
        let model = try EDMXParser.parse(Self.version4)
        let car = try #require(model.entityTypes["Garage.Car"])
        // A row offers Retire, inline, under the annotation's label; the record naming no action is passed over
        #expect(car.ui.lineItem?.map(\.path) == ["make"])
        #expect(car.ui.lineItemActions == [ActionField(action: "Garage.Retire", label: "Retire it", isInline: true)])
        #expect(model.operation(named: "Garage.Retire", boundTo: "Garage.Car")?.bindingParameter == "vehicle")
        // The car's own screen offers the unbound Reset, as one of the actions that end a task
        #expect(
            car.ui.identificationActions == [ActionField(action: "Garage.Container/Reset", isDetermining: true)])
        #expect(model.operation(named: "Garage.Container/Reset")?.label == "Reset the demo")
        #expect(model.operation(named: "Garage.Nothing") == nil)
        // A v2 service names its function imports by the container
        let version2 = try EDMXParser.parse(Self.version2)
        #expect(version2.operation(named: "SHOP.SHOP_Entities/Confirm")?.kind == .action)
        #expect(version2.operation(named: "OrdersDue")?.kind == .function)
    }

    func builder(_ dialect: ODataDialect) -> OperationRequestBuilder {
        OperationRequestBuilder(urls: ODataURLBuilder(serviceRoot: "http://h/S/", dialect: dialect))
    }

    @Test func a_version_2_function_import_takes_its_parameters_as_literals_in_the_query() throws {
        let model = try EDMXParser.parse(Self.version2)
        let due = try builder(.v2).request(
            try operation(model, "OrdersDue"),
            arguments: [.init(name: "Days", value: .int(30)), .init(name: "Since", value: .null)])
        #expect(due.method == .get && due.url == "http://h/S/OrdersDue?Days=30" && due.body == nil)
        // An action for an order: its key as the parameter of that name, the verb the service names, sent once
        let attempt = WriteRequestBuilder.Attempt(requestID: "id-1", firstSent: Date(timeIntervalSince1970: 0))
        let confirm = try builder(.v2).request(
            try operation(model, "Confirm"), arguments: [.init(name: "Note", value: .string("it's fine"))],
            on: EntityKey(entitySet: "Orders", value: .string("42")), keyNames: ["OrderID"], attempt: attempt)
        #expect(confirm.method == .post)
        #expect(confirm.url == "http://h/S/Confirm?OrderID='42'&Note='it''s%20fine'")
        #expect(confirm.headers["Repeatability-Request-ID"] == "id-1")
        // A required parameter left out is a sentence naming it
        #expect(throws: OperationCallError(description: "Orders due needs a value for Within days.")) {
            try builder(.v2).request(try operation(model, "OrdersDue"), arguments: [])
        }
    }

    @Test func a_version_4_function_takes_aliases_and_an_action_a_json_body() throws {
        let model = try EDMXParser.parse(Self.version4)
        let due = try builder(.v4).request(
            try operation(model, "CarsDue"), arguments: [.init(name: "days", value: .int(14))])
        // (every parameter named, one left empty as null: the names pick the overload)
        #expect(due.method == .get && due.url == "http://h/S/CarsDue(days=@days,where=@where)?@days=14&@where=null")
        // A text goes as a literal, escaped for the query
        let byMake = try builder(.v4).request(
            try operation(model, "ByMake"), arguments: [.init(name: "make", value: .string("O'Neil & Sons+Ü"))])
        #expect(byMake.url == "http://h/S/ByMake(make=@make)?@make='O''Neil%20%26%20Sons%2B%C3%9C'")
        let cost = try builder(.v4).request(
            try #require(model.operations.first { $0.name == "Garage.TotalCost" && !$0.isBoundToCollection }),
            arguments: [.init(name: "from", value: .dateTime(ODataInstant(millisecondsSince1970: 1_767_312_000_000)))],
            on: EntityKey(entitySet: "Cars", value: .int(7)))
        #expect(cost.url == "http://h/S/Cars(7)/Garage.TotalCost(from=@from)?@from=2026-01-02")
        let cheapest = try builder(.v4).request(
            try operation(model, "Garage.Cheapest"), arguments: [], collection: ResourcePath(entitySet: "Cars"))
        #expect(cheapest.url == "http://h/S/Cars/Garage.Cheapest()")
        let retire = try builder(.v4).request(
            try operation(model, "Garage.Retire"), arguments: [.init(name: "reason", value: .string("rust"))],
            on: EntityKey(entitySet: "Cars", value: .int(7)),
            attempt: .init(requestID: "r", firstSent: Date(timeIntervalSince1970: 0), etag: "W/\"3\""))
        #expect(retire.method == .post && retire.url == "http://h/S/Cars(7)/Garage.Retire")
        #expect(retire.body.map { String(decoding: $0, as: UTF8.self) } == #"{"reason":"rust"}"#)
        #expect(retire.headers["If-Match"] == "W/\"3\"" && retire.headers["Content-Type"] == "application/json")
        let reset = try builder(.v4).request(try operation(model, "Reset"), arguments: [])
        #expect(reset.method == .post && reset.url == "http://h/S/Reset" && reset.body.map(\.count) == 2)
        // A complex parameter is a sentence, not a request; a bound one needs its entity
        #expect(throws: OperationCallError.self) {
            try builder(.v4).request(
                try operation(model, "CarsDue"),
                arguments: [.init(name: "days", value: .int(1)), .init(name: "where", value: .string("x"))])
        }
        #expect(throws: OperationCallError(description: "Retire is invoked on one entity.")) {
            try builder(.v4).request(
                try operation(model, "Garage.Retire"), arguments: [])
        }
    }
}

/// A function that lists entities, called as a list (issue 36): v4 calls it in the path with every parameter
/// named, v2 puts its parameters in the query; the list's key is the call.
@Suite struct OperationListTests {
    func byMake(_ dialect: ODataDialect) -> ServiceOperation {
        var operation = ServiceOperation(
            kind: .function, name: "CarsByMake",
            parameters: [
                .init(name: "make", type: .primitive(.string), isNullable: false),
                .init(name: "year", type: .primitive(.int32), isNullable: true),
            ], returnType: .collection(.named("NS.Car")), method: .get, dialect: dialect)
        operation.entitySet = "Car"
        return operation
    }

    @Test func each_dialect_calls_it_its_own_way_and_another_call_is_another_list() throws {
        let v4 = try OperationRequestBuilder.resultList(
            byMake(.v4), arguments: [.init(name: "make", value: .string("O'Ford"))])
        let urls = ODataURLBuilder(serviceRoot: "http://h/s/", dialect: .v4)
        var aliases = QueryOptions()
        aliases.custom = v4.parameters
        #expect(
            urls.url(v4.path, aliases) == "http://h/s/CarsByMake(make=@make,year=@year)?@make='O''Ford'&@year=null",
            "\(urls.url(v4.path, aliases))")
        // A date is written as a date, a slash stays in the query
        var dated = byMake(.v4)
        dated.parameters[1] = .init(name: "since", type: .primitive(.date), isNullable: true)
        let since = try OperationRequestBuilder.resultList(
            dated,
            arguments: [
                .init(name: "make", value: .string("A/B")),
                .init(name: "since", value: .dateTime(ODataInstant(millisecondsSince1970: 1_600_000_000_000))),
            ])
        #expect(since.parameters.map(\.value) == ["'A/B'", "2020-09-13"])
        let v2 = try OperationRequestBuilder.resultList(
            byMake(.v2),
            arguments: [.init(name: "make", value: .string("Ford")), .init(name: "year", value: .int(2020))])
        var options = QueryOptions()
        options.custom = v2.parameters
        #expect(
            ODataURLBuilder(serviceRoot: "http://h/s/").url(v2.path, options)
                == "http://h/s/CarsByMake?make='Ford'&year=2020")
        let other = QueryOptions(filter: nil)
        #expect(ListKey(path: v2.path, options: options) != ListKey(path: v2.path, options: other))
        #expect(
            ListKey(path: v4.path, options: aliases).canonical
                == "CarsByMake(make=@make,year=@year)?@make='O''Ford'&@year=null")
        // A required one left out, and an action, are sentences
        #expect(throws: OperationCallError.self) { try OperationRequestBuilder.resultList(byMake(.v4), arguments: []) }
        var action = byMake(.v4)
        action.kind = .action
        #expect(throws: OperationCallError.self) { try OperationRequestBuilder.resultList(action, arguments: []) }
        #expect(!action.listsEntities && byMake(.v2).listsEntities)
    }
}
