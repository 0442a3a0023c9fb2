import Testing

@testable import ODataCore

@Suite struct JSONReaderTests {
    @Test func numbers_keep_their_exact_text() throws {
        let value = try JSONReader().read(#"[9223372036854775807, -0.0, 1.50e-3, 123456789012345678901234567890]"#)
        #expect(
            value
                == .array([
                    .number("9223372036854775807"), .number("-0.0"), .number("1.50e-3"),
                    .number("123456789012345678901234567890"),
                ]))
    }

    @Test func objects_keep_member_order_and_escapes_decode() throws {
        let value = try JSONReader().read(#"{"z":1,"a":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE80","m":[true,false,null]}"#)
        guard case .object(let object) = value else {
            Issue.record("not an object")
            return
        }
        #expect(object.members.map(\.key) == ["z", "a", "m"])
        #expect(object["a"] == .string("\"\\/\u{8}\u{C}\n\r\té🚀"))
        #expect(object["m"] == .array([.bool(true), .bool(false), .null]))
    }

    @Test func raw_control_characters_inside_strings_are_kept_for_the_sanitiser() throws {
        #expect(try JSONReader().read("\"a\u{1B}]0;x\u{7}b\"") == .string("a\u{1B}]0;x\u{7}b"))
    }

    @Test func errors_say_where() {
        #expect(throws: JSONSyntaxError(offset: 7, reason: "expected ',' or '}' in an object, found '2'")) {
            try JSONReader().read(#"{"a":1 2}"#)
        }
    }
}
