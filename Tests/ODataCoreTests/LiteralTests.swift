import Foundation
import Testing

@testable import ODataCore

@Suite struct LiteralTests {
    static let typedCases: [(ODataValue, EdmPrimitiveType, String)] = [
        (.int(42), .int32, "42"),
        (.int(-7), .int16, "-7"),
        (.int(255), .byte, "255"),
        (.int(-128), .sByte, "-128"),
        (.int(9_007_199_254_740_993), .int64, "9007199254740993L"),
        (.int(Int64.max), .int64, "9223372036854775807L"),
        (.int(Int64.min), .int64, "-9223372036854775808L"),
        (.decimal("12.5"), .decimal, "12.5M"),
        (.decimal("-123456789012345678901234567890.12345"), .decimal, "-123456789012345678901234567890.12345M"),
        (.double(2.5), .double, "2.5d"),
        (.double(0.25), .single, "0.25f"),
        (.bool(true), .boolean, "true"),
        (.bool(false), .boolean, "false"),
        (.guid("0f8fad5b-d9cb-469f-a165-70867728950e"), .guid, "guid'0f8fad5b-d9cb-469f-a165-70867728950e'"),
        (
            .dateTime(ODataInstant(millisecondsSince1970: 1_257_008_908_440)), .dateTime,
            "datetime'2009-10-31T17:08:28.440'"
        ),
        (.dateTime(ODataInstant(millisecondsSince1970: -86_400_000)), .dateTime, "datetime'1969-12-31T00:00:00'"),
        (
            .dateTimeOffset(ODataInstant(millisecondsSince1970: 0, offsetMinutes: -210)), .dateTimeOffset,
            "datetimeoffset'1969-12-31T20:30:00-03:30'"
        ),
        (.time(ODataDuration(milliseconds: 9_584_000)), .time, "time'PT02H39M44S'"),
        (.binary(Data([0xAA, 0xF2, 0xD9])), .binary, "X'AAF2D9'"),
        (.string("O'Neil"), .string, "'O''Neil'"),
    ]

    @Test(arguments: typedCases)
    func every_typed_literal_formats_and_parses_back(value: ODataValue, type: EdmPrimitiveType, literal: String) {
        #expect(ODataLiteral.format(value, as: type) == literal)
        #expect(ODataLiteral.parse(literal) == value)
    }

    static let hostileStrings = [
        "O'Neil", "''", "a/b", "100%", "#hash", "a&b=c", "1+1", "with space", "?q", "Zoë", "東京",
        "👩🏽‍🚀", "🇸🇪", "tab\there", "semi;colon", "paren(s)", "comma,separated", "=equals",
    ]

    @Test(arguments: hostileStrings)
    func string_keys_survive_a_url_round_trip(text: String) throws {
        // Given a key whose string would break a naive URL
        let key = EntityKey(entitySet: "Customers", value: .string(text))

        // When it is put into a URL and read back out of it
        let url = ODataURLBuilder(serviceRoot: "http://h/S.svc").url(ResourcePath(key))
        let path = try #require(ResourcePath.parse(uri: url, serviceRoot: "http://h/S.svc/"))

        // Then the URL has nothing that ends a segment early, and the key is the same
        let encoded = String(url.dropFirst("http://h/S.svc/".count))
        #expect(!encoded.contains(" ") && !encoded.contains("#") && !encoded.contains("?") && !encoded.contains("&"))
        #expect(encoded.dropFirst("Customers(".count).dropLast().contains("/") == false)
        #expect(path.entityKey == key)
        #expect(path.entityKey?.canonical == "Customers(" + ODataLiteral.quote(text) + ")")
    }

    @Test func quotes_are_doubled_before_percent_encoding() {
        let url = ODataURLBuilder(serviceRoot: "http://h/S.svc/").url(
            ResourcePath(EntityKey(entitySet: "Customers", value: .string("O'Neil 100%"))))
        #expect(url == "http://h/S.svc/Customers('O''Neil%20100%25')")
    }

    @Test func int64_keys_above_two_to_the_53_stay_exact() throws {
        let big: Int64 = 9_007_199_254_740_993
        let path = try #require(ResourcePath.parse(relative: "Orders(9007199254740993L)"))
        #expect(path.entityKey == EntityKey(entitySet: "Orders", value: .int(big)))
        #expect(path.entityKey?.canonical == "Orders(9007199254740993)")
    }

    @Test func composite_keys_round_trip_and_canonicalise_by_name() throws {
        // Given the same composite key written in two orders
        let first = try #require(ResourcePath.parse(relative: "Order_Details(OrderID=1L,LineNumber=10)")?.entityKey)
        let second = try #require(ResourcePath.parse(relative: "Order_Details(LineNumber=10,OrderID=1)")?.entityKey)

        // Then both have one canonical identity
        #expect(first.canonical == "Order_Details(LineNumber=10,OrderID=1)")
        #expect(first.canonical == second.canonical)

        // And typed URL literals follow the key's declared types
        let url = ODataURLBuilder(serviceRoot: "http://h/S.svc/") { _ in ["OrderID": .int64, "LineNumber": .int32] }
            .url(ResourcePath(first))
        #expect(url == "http://h/S.svc/Order_Details(OrderID=1L,LineNumber=10)")
    }

    @Test func a_composite_key_with_quotes_and_commas_in_strings_parses() throws {
        let key = try #require(KeyPredicate.parse("Name='a,b=c',Code='O''Neil'"))
        #expect(key == [.init(name: "Name", value: .string("a,b=c")), .init(name: "Code", value: .string("O'Neil"))])
    }

    @Test(arguments: [
        "'unterminated", "guid'not-a-guid'", "12abc", "", "datetime'2009-13-01T00:00'", "X'ABC'", "1,2", "a=", "=1",
    ])
    func malformed_literals_and_predicates_are_refused(text: String) {
        #expect(KeyPredicate.parse(text) == nil)
    }

    @Test func decimal_text_is_canonical() {
        #expect(DecimalText.canonical("0012.500") == "12.5")
        #expect(DecimalText.canonical("-0.0") == "0")
        #expect(DecimalText.canonical("1e3") == "1000")
        #expect(DecimalText.canonical("1.5E-2") == "0.015")
        #expect(DecimalText.canonical("12.") == "12")
        #expect(DecimalText.canonical("abc") == nil)
        #expect(DecimalText.canonical("1e999999") == nil)
    }
}
