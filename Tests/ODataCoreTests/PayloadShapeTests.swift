import Testing

@testable import ODataCore

@Suite struct PayloadShapeTests {
    @Test func a_v2_collection_has_results_count_as_string_and_next_as_string() throws {
        let payload = try decode(
            #"{"d":{"results":[{"id":1},{"id":2}],"__count":"40","__next":"http://h/S.svc/P?$skiptoken=2"}}"#)
        let collection = try #require(payload.collection)
        #expect(collection.entities.count == 2)
        #expect(collection.count == 40)
        #expect(collection.nextLink == "http://h/S.svc/P?$skiptoken=2")
    }

    @Test func count_as_number_and_next_as_uri_object_are_accepted() throws {
        let payload = try decode(#"{"d":{"results":[],"__count":7,"__next":{"uri":"http://h/next"}}}"#)
        #expect(payload.collection?.count == 7)
        #expect(payload.collection?.nextLink == "http://h/next")
        #expect(payload.collection?.entities.isEmpty == true)
    }

    @Test func a_v1_plain_array_is_a_collection() throws {
        let payload = try decode(#"{"d":[{"id":1},{"id":2},{"id":3}]}"#)
        #expect(payload.collection?.entities.count == 3)
        #expect(payload.collection?.count == nil)
    }

    @Test func expanded_to_many_comes_in_both_shapes_and_to_one_as_object_or_null() throws {
        let v1 = try decode(
            #"{"d":{"__metadata":{"uri":"http://h/S.svc/P(1)"},"Cars":[{"__metadata":{"uri":"http://h/S.svc/C(1)"}}]}}"#
        )
        let v2 = try decode(
            #"{"d":{"__metadata":{"uri":"http://h/S.svc/P(1)"},"Cars":{"results":[{"__metadata":{"uri":"http://h/S.svc/C(1)"}}]}}}"#
        )
        #expect(v1.entity?.navigation("Cars")?.entities?.first?.key?.canonical == "C(1)")
        #expect(v1.entity?.navigation("Cars") == v2.entity?.navigation("Cars"))

        let model = try EDMXParser.parse(try fixture("cardealer-metadata.xml"))
        let withNull = try decode(
            #"{"d":{"personCarID":3,"Car":null,"Person":{"personID":9}}}"#, model: model, set: "PersonCar")
        let link = try #require(withNull.entity)
        #expect(link.navigation("Car") == .null)
        #expect(link.navigation("Person")?.entity?.key?.canonical == "Person(9)")
        #expect(link.key?.canonical == "PersonCar(3)")
    }

    @Test func metadata_may_be_absent_or_carry_an_etag() throws {
        let plain = try #require(try decode(#"{"d":{"id":1,"name":"x"}}"#).entity)
        #expect(plain.metadata == EntityMetadata())
        #expect(plain.key == nil)
        let tagged = try #require(
            try decode(
                #"{"d":{"__metadata":{"uri":"http://h/S.svc/P(1)","type":"N.P","etag":"W/\"datetime'2022-03-04T13%3A03%3A12'\""}}}"#
            ).entity)
        #expect(tagged.metadata.etag == #"W/"datetime'2022-03-04T13%3A03%3A12'""#)
        #expect(tagged.metadata.type == "N.P")
    }

    @Test func the_model_types_values_from_strings_and_numbers() throws {
        let model = try EDMXParser.parse(try fixture("cardealer-metadata.xml"))
        let json = #"""
            {"d":{"personID":"1","firstName":"Bob","balance":"12345678901234567890.1200","serial":"9223372036854775807",
            "createDate":"\/Date(-86400000)\/","address":{"city":"Zoë","since":"/Date(1623333779000+0060)/"}}}
            """#
        let person = try #require(try decode(json, model: model, set: "Person").entity)
        #expect(person.key?.canonical == "Person(1)")
        #expect(person["personID"] == .int(1))
        #expect(person["balance"] == .decimal("12345678901234567890.12"))
        #expect(person["serial"] == .int(Int64.max))
        #expect(person["createDate"] == .dateTime(ODataInstant(millisecondsSince1970: -86_400_000)))
        #expect(
            person["address"]
                == .complex([
                    ODataProperty(name: "city", value: .string("Zoë")),
                    ODataProperty(
                        name: "since",
                        value: .dateTimeOffset(
                            ODataInstant(millisecondsSince1970: 1_623_333_779_000, offsetMinutes: 60))),
                ]))
    }

    @Test func best_effort_typing_without_a_model() throws {
        let entity = try #require(
            try decode(
                #"{"d":{"a":9007199254740993,"b":99999999999999999999,"c":1.5,"d":"\/Date(5-0210)\/","e":true,"f":null}}"#
            ).entity)
        #expect(entity["a"] == .int(9_007_199_254_740_993))
        #expect(entity["b"] == .decimal("99999999999999999999"))
        #expect(entity["c"] == .double(1.5))
        #expect(entity["d"] == .dateTimeOffset(ODataInstant(millisecondsSince1970: 5, offsetMinutes: -210)))
        #expect(entity["e"] == .bool(true))
        #expect(entity["f"] == .null)
    }

    @Test(
        arguments: [
            ("/Date(1257008908440)/", 1_257_008_908_440, nil),
            ("\\/Date(1257008908440)\\/", 1_257_008_908_440, nil),
            ("/Date(-1257008908440)/", -1_257_008_908_440, nil),
            ("/Date(1623333779000+0060)/", 1_623_333_779_000, 60),
            ("/Date(1623333779000-0210)/", 1_623_333_779_000, -210),
        ] as [(String, Int64, Int?)])
    func every_wire_date_form_parses(text: String, milliseconds: Int64, offset: Int?) {
        #expect(
            ODataInstant(wireDate: text) == ODataInstant(millisecondsSince1970: milliseconds, offsetMinutes: offset))
    }

    @Test func iso_dates_and_edm_time_parse() {
        #expect(ODataInstant(iso8601: "2021-06-10T14:02:59")?.millisecondsSince1970 == 1_623_333_779_000)
        #expect(ODataInstant(iso8601: "2021-06-10T15:02:59+01:00")?.millisecondsSince1970 == 1_623_333_779_000)
        #expect(ODataInstant(iso8601: "2021-06-10T14:02:59.1234567Z")?.millisecondsSince1970 == 1_623_333_779_123)
        #expect(ODataInstant(iso8601: "1900-01-01T00:00:00")?.millisecondsSince1970 == -2_208_988_800_000)
        #expect(ODataInstant(iso8601: "2021-02-30T25:00") == nil)
        #expect(ODataDuration(parsing: "PT02H39M44S")?.milliseconds == 9_584_000)
        #expect(ODataDuration(parsing: "02:39:44")?.milliseconds == 9_584_000)
        #expect(ODataDuration(parsing: "PT0.5S")?.milliseconds == 500)
        #expect(ODataDuration(parsing: "P1DT1H")?.milliseconds == 90_000_000)
        #expect(ODataDuration(parsing: "PTXS") == nil)
        #expect(ODataDuration(parsing: "2:99") == nil)
    }

    @Test func a_guid_binary_and_doubles_from_strings_are_typed() {
        typealias C = PayloadDecoder.Context
        #expect(
            C.primitive(.string("0F8FAD5B-D9CB-469F-A165-70867728950E"), as: .guid)
                == .guid("0f8fad5b-d9cb-469f-a165-70867728950e"))
        #expect(C.primitive(.string("AAF2"), as: .binary) == .binary(.init([0x00, 0x01, 0x76])))
        #expect(C.primitive(.string("1.5"), as: .double) == .double(1.5))
        #expect(C.primitive(.string("INF"), as: .single) == .double(.infinity))
        #expect(C.primitive(.number("3"), as: .double) == .double(3))
        #expect(C.primitive(.string("nope"), as: .guid) == nil)
    }
}
