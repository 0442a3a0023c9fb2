import Foundation
import ODataCore
import Testing

/// OData v4 JSON through the one decoder (issue 19): `value`, `@odata.count`, `@odata.nextLink`, `@odata.etag`,
/// bare expansions, the new Edm types and exact Int64s; and each dialect's answer refused where the other was
/// asked for, in a sentence.
@Suite struct Version4PayloadTests {
    static let document = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:DataServices>
            <Schema Namespace="Shop" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Order">
                <Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int64" Nullable="false"/>
                <Property Name="value" Type="Edm.Decimal" Scale="2"/>
                <Property Name="placed" Type="Edm.Date"/>
                <Property Name="at" Type="Edm.TimeOfDay"/>
                <Property Name="took" Type="Edm.Duration"/>
                <Property Name="stamp" Type="Edm.DateTimeOffset"/>
                <Property Name="token" Type="Edm.Guid"/>
                <Property Name="ratio" Type="Edm.Double"/>
                <NavigationProperty Name="Lines" Type="Collection(Shop.Line)" Partner="Order"/>
                <NavigationProperty Name="Customer" Type="Shop.Customer"/>
              </EntityType>
              <EntityType Name="Line">
                <Key><PropertyRef Name="order"/><PropertyRef Name="position"/></Key>
                <Property Name="order" Type="Edm.Int64" Nullable="false"/>
                <Property Name="position" Type="Edm.Int32" Nullable="false"/>
                <Property Name="product" Type="Edm.String"/>
                <NavigationProperty Name="Order" Type="Shop.Order" Partner="Lines"/>
              </EntityType>
              <EntityType Name="Customer">
                <Key><PropertyRef Name="code"/></Key>
                <Property Name="code" Type="Edm.String" Nullable="false"/>
              </EntityType>
              <EntityContainer Name="Container">
                <EntitySet Name="Orders" EntityType="Shop.Order">
                  <NavigationPropertyBinding Path="Lines" Target="Lines"/>
                  <NavigationPropertyBinding Path="Customer" Target="Customers"/>
                </EntitySet>
                <EntitySet Name="Lines" EntityType="Shop.Line">
                  <NavigationPropertyBinding Path="Order" Target="Orders"/>
                </EntitySet>
                <EntitySet Name="Customers" EntityType="Shop.Customer"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    static let model: ServiceModel = {
        do { return try EDMXParser.parse(Array(document.utf8)) } catch { fatalError("\(error)") }
    }()

    func decode(_ text: String, set: String? = "Orders", model: ServiceModel? = Self.model) throws -> ODataPayload {
        try PayloadDecoder(serviceRoot: "http://host/shop/", model: model).decode(Array(text.utf8), entitySet: set)
    }

    @Test func the_model_says_v4_and_the_decoder_takes_its_dialect() {
        #expect(Self.model.dialect == .v4)
        #expect(PayloadDecoder(serviceRoot: "http://host/", model: Self.model).dialect == .v4)
    }

    @Test func a_collection_brings_its_count_its_next_link_and_typed_keyed_rows() throws {
        let payload = try decode(
            """
            {"@odata.context":"http://host/shop/$metadata#Orders","@odata.count":9007199254740993,
             "value":[
               {"@odata.etag":"W/\\"3\\"","@odata.type":"#Shop.Order","id":9007199254740993,"value":12.5,
                "placed":"2025-08-30","at":"13:20:05","took":"P1DT2H","stamp":"2025-08-30T10:00:00+02:00",
                "token":"0C4B5A1E-8F4E-4C84-9A0D-6C5D2B1F9E11","ratio":"INF","Lines@odata.navigationLink":"x"},
               {"id":"9007199254740995","value":"7.10","ratio":1e3}
             ],
             "@odata.nextLink":"http://host/shop/Orders?$skiptoken=2"}
            """)
        guard case .collection(let collection) = payload else {
            Issue.record("not a collection: \(payload)")
            return
        }
        #expect(collection.count == 9_007_199_254_740_993)
        #expect(collection.nextLink == "http://host/shop/Orders?$skiptoken=2")
        #expect(collection.entities.count == 2)
        let first = collection.entities[0]
        // Beyond 2^53, kept exact as number and as IEEE754Compatible string alike
        #expect(first.key == EntityKey(entitySet: "Orders", value: .int(9_007_199_254_740_993)))
        #expect(collection.entities[1].key == EntityKey(entitySet: "Orders", value: .int(9_007_199_254_740_995)))
        #expect(first.metadata.etag == "W/\"3\"")
        #expect(first.metadata.type == "Shop.Order")
        #expect(first["value"] == .decimal("12.5"))
        #expect(collection.entities[1]["value"] == .decimal("7.1"))
        #expect(first["placed"] == .dateTime(ODataInstant(iso8601: "2025-08-30T00:00:00")!))
        #expect(first["at"] == .time(ODataDuration(milliseconds: (13 * 3600 + 20 * 60 + 5) * 1000)))
        #expect(first["took"] == .time(ODataDuration(milliseconds: 26 * 3_600_000)))
        #expect(first["stamp"] == .dateTimeOffset(ODataInstant(iso8601: "2025-08-30T10:00:00+02:00")!))
        #expect(first["token"] == .guid("0c4b5a1e-8f4e-4c84-9a0d-6c5d2b1f9e11"))
        #expect(first["ratio"] == .double(.infinity))
        #expect(collection.entities[1]["ratio"] == .double(1000))
        // Annotations are not properties
        #expect(!first.properties.contains { $0.name.contains("@") })
    }

    @Test func expansions_are_bare_objects_and_arrays_and_say_when_they_are_partial() throws {
        let payload = try decode(
            """
            {"@odata.context":"http://host/shop/$metadata#Orders/$entity","id":7,
             "Customer":{"code":"C'1"},
             "Lines@odata.count":3,
             "Lines":[{"order":7,"position":1,"product":"tyre"},{"order":7,"position":2,"product":"oil"}],
             "Lines@odata.nextLink":"Orders(7)/Lines?$skip=2"}
            """)
        guard case .entity(let order) = payload else {
            Issue.record("not an entity: \(payload)")
            return
        }
        #expect(order.key == EntityKey(entitySet: "Orders", value: .int(7)))
        let customer = order.navigations.first { $0.name == "Customer" }?.content
        guard case .entity(let entity)? = customer else {
            Issue.record("Customer: \(String(describing: customer))")
            return
        }
        #expect(entity.key == EntityKey(entitySet: "Customers", value: .string("C'1")))
        let lines = order.navigations.first { $0.name == "Lines" }?.content
        guard case .collection(let collection)? = lines else {
            Issue.record("Lines: \(String(describing: lines))")
            return
        }
        #expect(collection.entities.map(\.entitySet) == ["Lines", "Lines"])
        #expect(
            collection.entities[1].key
                == EntityKey(
                    entitySet: "Lines",
                    values: [.init(name: "order", value: .int(7)), .init(name: "position", value: .int(2))]))
        #expect(collection.count == 3)
        #expect(collection.nextLink == "Orders(7)/Lines?$skip=2")
    }

    @Test func an_entity_with_a_property_called_value_is_not_taken_for_a_collection() throws {
        let payload = try decode(#"{"id":1,"value":3.5}"#)
        guard case .entity(let order) = payload else {
            Issue.record("not an entity: \(payload)")
            return
        }
        #expect(order["value"] == .decimal("3.5"))
    }

    @Test func a_v4_error_body_is_the_services_sentence() throws {
        #expect {
            _ = try decode(#"{"error":{"code":"E1","message":"Order 7 is locked","details":[]}}"#)
        } throws: { error in
            (error as? ODataError)?.message == "Order 7 is locked" && (error as? ODataError)?.code == "E1"
        }
    }

    @Test func a_v2_answer_to_a_v4_service_and_the_reverse_are_refused_in_words() throws {
        #expect {
            _ = try decode(#"{"d":{"results":[]}}"#)
        } throws: { error in
            (error as? ODataError)?.kind == .malformedPayload
                && "\(error)".contains("OData v2") && "\(error)".contains("says OData v4")
        }
        var version2 = ServiceModel()
        version2.edmxVersion = "1.0"
        #expect {
            _ = try decode(#"{"@odata.context":"x","value":[]}"#, set: nil, model: version2)
        } throws: { error in
            (error as? ODataError)?.kind == .malformedPayload && "\(error)".contains("OData v4")
                && "\(error)".contains("says OData v2")
        }
    }

    @Test func without_a_model_either_dialect_is_read_by_its_shape() throws {
        guard case .collection(let v4) = try decode(#"{"value":[{"a":1}]}"#, set: "X", model: nil),
            case .collection(let v2) = try decode(#"{"d":{"results":[{"a":1}]}}"#, set: "X", model: nil)
        else {
            Issue.record("not collections")
            return
        }
        #expect(v4.entities.first?["a"] == .int(1))
        #expect(v2.entities.first?["a"] == .int(1))
    }
}

/// v4's literals, keys and query options (issue 19): no `L`/`M` suffixes, bare guids and dates, nested `$expand`,
/// `$count=true`.
@Suite struct Version4URLTests {
    let builder = ODataURLBuilder(serviceRoot: "http://host/shop", model: Version4PayloadTests.model)

    @Test func literals_are_spelled_bare_where_v4_spells_them_so() {
        func v4(_ value: ODataValue, _ type: EdmPrimitiveType? = nil) -> String? {
            ODataLiteral.format(value, as: type, dialect: .v4)
        }
        #expect(v4(.int(10248), .int64) == "10248")
        #expect(v4(.decimal("1.5"), .decimal) == "1.5")
        #expect(v4(.double(2.5), .double) == "2.5")
        #expect(v4(.string("O'Neil")) == "'O''Neil'")
        #expect(v4(.guid("0c4b5a1e-8f4e-4c84-9a0d-6c5d2b1f9e11")) == "0c4b5a1e-8f4e-4c84-9a0d-6c5d2b1f9e11")
        let midnight = ODataInstant(iso8601: "2025-08-30T00:00:00")!
        #expect(v4(.dateTime(midnight), .date) == "2025-08-30")
        #expect(v4(.dateTime(midnight)) == "2025-08-30T00:00:00Z")
        #expect(v4(.dateTimeOffset(ODataInstant(iso8601: "2025-08-30T10:00:00+02:00")!)) == "2025-08-30T10:00:00+02:00")
        #expect(v4(.time(ODataDuration(milliseconds: 48_000_000)), .timeOfDay) == "13:20:00")
        #expect(v4(.time(ODataDuration(milliseconds: 48_000_000)), .duration) == "duration'PT13H20M00S'")
        #expect(v4(.double(.nan)) == "NaN")
        // And v2 keeps its own spelling
        #expect(ODataLiteral.format(.int(10248), as: .int64) == "10248L")
        #expect(
            ODataLiteral.format(.guid("0c4b5a1e-8f4e-4c84-9a0d-6c5d2b1f9e11"))
                == "guid'0c4b5a1e-8f4e-4c84-9a0d-6c5d2b1f9e11'")
    }

    @Test func bare_v4_literals_parse_back() {
        #expect(
            ODataLiteral.parse("0C4B5A1E-8F4E-4C84-9A0D-6C5D2B1F9E11") == .guid("0c4b5a1e-8f4e-4c84-9a0d-6c5d2b1f9e11"))
        #expect(ODataLiteral.parse("2025-08-30") == .dateTime(ODataInstant(iso8601: "2025-08-30T00:00:00")!))
        #expect(
            ODataLiteral.parse("2025-08-30T10:00:00Z")
                == .dateTimeOffset(ODataInstant(iso8601: "2025-08-30T10:00:00Z")!))
        #expect(ODataLiteral.parse("duration'P1D'") == .time(ODataDuration(milliseconds: 86_400_000)))
        #expect(ODataLiteral.parse("2025-13-30") == nil)
    }

    @Test func keys_and_options_go_into_urls_as_v4_wants_them() {
        let line = EntityKey(
            entitySet: "Lines", values: [.init(name: "order", value: .int(7)), .init(name: "position", value: .int(2))])
        #expect(builder.url(ResourcePath(line)) == "http://host/shop/Lines(order=7,position=2)")
        let options = QueryOptions(
            expand: ["Lines", "Lines/Order", "Customer", "Lines/Order/Customer"], top: 50, inlineCount: true)
        #expect(
            builder.url(ResourcePath(entitySet: "Orders"), options)
                == "http://host/shop/Orders?$expand=Lines($expand=Order($expand=Customer)),Customer&$top=50&$count=true"
        )
        // The same options to a v2 service
        #expect(
            options.queryText
                == "$expand=Lines,Lines/Order,Customer,Lines/Order/Customer&$top=50&$inlinecount=allpages")
    }

    @Test func a_service_that_refuses_nested_expansions_is_asked_one_level() {
        let flat = ODataURLBuilder(
            serviceRoot: "http://host/shop", model: Version4PayloadTests.model, nestsExpand: false)
        #expect(
            flat.url(ResourcePath(entitySet: "Orders"), QueryOptions(expand: ["Lines", "Lines/Order", "Customer"]))
                == "http://host/shop/Orders?$expand=Lines,Customer")
        #expect(
            ODataURLBuilder.flatteningExpand(
                "http://h/Orders(1)?$expand=Lines($expand=Order($expand=X)),Customer&$top=5")
                == "http://h/Orders(1)?$expand=Lines,Customer&$top=5")
        #expect(ODataURLBuilder.flatteningExpand("http://h/Orders(1)?$expand=Lines,Customer") == nil)
    }
}

/// v4 request bodies (issue 19): JSON numbers for Int64 and Decimal, ISO dates, `@odata.bind` links.
@Suite struct Version4BodyTests {
    @Test func values_are_written_as_v4_reads_them_and_links_as_odata_bind() {
        let body = RequestBodyEncoder.object(
            [
                ODataProperty(name: "id", value: .int(9_007_199_254_740_993)),
                ODataProperty(name: "value", value: .decimal("12.5")),
                ODataProperty(name: "placed", value: .dateTime(ODataInstant(iso8601: "2025-08-30T00:00:00")!)),
                ODataProperty(name: "at", value: .time(ODataDuration(milliseconds: 48_000_000))),
                ODataProperty(name: "took", value: .time(ODataDuration(milliseconds: 93_600_000))),
                ODataProperty(name: "stamp", value: .dateTimeOffset(ODataInstant(iso8601: "2025-08-30T10:00:00Z")!)),
                ODataProperty(name: "tags", value: .collection([.string("a"), .string("b")])),
            ],
            types: [
                "id": .int64, "value": .decimal, "placed": .date, "at": .timeOfDay, "took": .duration,
                "stamp": .dateTimeOffset,
            ],
            bindings: [("Customer", "http://host/shop/Customers('C1')")], dialect: .v4)
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"id":9007199254740993,"value":12.5,"placed":"2025-08-30","at":"13:20:00","took":"PT26H00M00S","#
                + #""stamp":"2025-08-30T10:00:00Z","tags":["a","b"],"#
                + #""Customer@odata.bind":"http://host/shop/Customers('C1')"}"#)
        // What v4 writes, the v4 decoder reads back to the same values
        let model = Version4PayloadTests.model
        let decoded = try? PayloadDecoder(serviceRoot: "http://host/shop/", model: model).decode(
            RequestBodyEncoder.object(
                [
                    ODataProperty(name: "id", value: .int(9_007_199_254_740_993)),
                    ODataProperty(name: "placed", value: .dateTime(ODataInstant(iso8601: "2025-08-30T00:00:00")!)),
                ], types: ["id": .int64, "placed": .date], dialect: .v4), entitySet: "Orders")
        guard case .entity(let entity)? = decoded else {
            Issue.record("not read back: \(String(describing: decoded))")
            return
        }
        #expect(entity["id"] == .int(9_007_199_254_740_993))
        #expect(entity["placed"] == .dateTime(ODataInstant(iso8601: "2025-08-30T00:00:00")!))
    }
}
