import ODataCore
import Testing

@testable import DemoServer

/// Unit tests of the `$filter` tokenizer, parser and SQL translation.
struct FilterParserTests {
    @Test func and_binds_tighter_than_or() throws {
        let expression = try FilterParser.parse("a eq 1 or b eq 2 and c eq 3")
        #expect(
            expression
                == .binary(
                    .or, .binary(.eq, .property("a"), .literal(.int(1))),
                    .binary(
                        .and, .binary(.eq, .property("b"), .literal(.int(2))),
                        .binary(.eq, .property("c"), .literal(.int(3))))
                ))
    }

    @Test func parentheses_override_precedence() throws {
        let expression = try FilterParser.parse("(a eq 1 or b eq 2) and c eq 3")
        guard case .binary(.and, .binary(.or, _, _), _) = expression else {
            Issue.record("expected and(or(…), …), got \(expression)")
            return
        }
    }

    @Test func not_applies_to_the_whole_comparison() throws {
        #expect(
            try FilterParser.parse("not lastName eq 'x'")
                == .not(.binary(.eq, .property("lastName"), .literal(.string("x")))))
    }

    @Test func functions_and_typed_literals_are_parsed() throws {
        #expect(
            try FilterParser.parse("substringof('Sam', tolower(lastName))")
                == .call("substringof", [.literal(.string("Sam")), .call("tolower", [.property("lastName")])]))
        let date = try FilterParser.parse("createDate gt datetime'2009-10-31T17:08:28'")
        guard case .binary(.gt, .property("createDate"), .literal(.dateTime(let instant))) = date else {
            Issue.record("expected a datetime comparison, got \(date)")
            return
        }
        #expect(instant.millisecondsSince1970 == 1_257_008_908_000)
        #expect(try FilterParser.parse("cost ge 12.5M") == .binary(.ge, .property("cost"), .literal(.decimal("12.5"))))
        #expect(try FilterParser.parse("mileage lt -5L") == .binary(.lt, .property("mileage"), .literal(.int(-5))))
    }

    @Test func doubled_quotes_stay_inside_the_string() throws {
        #expect(
            try FilterParser.parse("lastName eq 'x'' or 1=1 --'")
                == .binary(.eq, .property("lastName"), .literal(.string("x' or 1=1 --"))))
    }

    @Test(arguments: [
        "", "lastName eq", "lastName eq 'open", "(a eq 1", "a eq 1)", "eq 1", "a eq 1 b", "a ## 1", "f(a,",
        "lastName eq datetime'not-a-date'",
    ])
    func malformed_filters_are_bad_requests(_ text: String) {
        #expect(throws: ServiceError.self) { try FilterParser.parse(text) }
    }

    @Test func deep_nesting_is_refused_not_crashed() {
        let text = String(repeating: "(", count: 500) + "a eq 1" + String(repeating: ")", count: 500)
        #expect(throws: ServiceError.self) { try FilterParser.parse(text) }
    }

    @Test func translation_binds_every_literal_as_an_argument() throws {
        // Given a filter with an injection attempt inside a string literal
        let expression = try FilterParser.parse("lastName eq 'x'' or 1=1 --' and startswith(firstName, 'B')")
        // When it is translated for the Person table
        let sql = try FilterTranslator(set: ServiceSchema.carDealer.entitySet("Person")!).condition(expression)
        // Then the SQL holds only placeholders and the values travel as arguments
        #expect(!sql.sql.contains("1=1"))
        #expect(sql.arguments.contains("x' or 1=1 --".databaseValue))
        #expect(sql.sql.filter { $0 == "?" }.count == sql.arguments.count)
    }

    @Test func type_mismatches_and_unknown_names_are_bad_requests() throws {
        let person = FilterTranslator(set: ServiceSchema.carDealer.entitySet("Person")!)
        for text in ["lastName eq 1", "nosuch eq 1", "lastName", "frobnicate(lastName)", "createDate gt 'x'"] {
            let expression = try FilterParser.parse(text)
            #expect(throws: ServiceError.self) { try person.condition(expression) }
        }
        let arithmetic = try FilterParser.parse("personID add 1 eq 2")
        #expect { try person.condition(arithmetic) } throws: { ($0 as? ServiceError)?.status == 501 }
    }
}
