import ODataCore
import Testing

@testable import Browser

/// Typed input per Edm type: what is accepted, what it becomes, and the sentence for what is refused.
@Suite struct FieldInputTests {
    func parse(
        _ text: String, _ type: EdmPrimitiveType, nullable: Bool = true, maxLength: Int? = nil,
        precision: Int? = nil, scale: Int? = nil
    ) -> Result<ODataValue, FieldError> {
        FieldInput(
            name: "f", type: type, isNullable: nullable, maxLength: maxLength, precision: precision, scale: scale
        )
        .parse(text)
    }

    @Test func accepted_text_becomes_its_value() throws {
        #expect(try parse("Zoë 🚗", .string, maxLength: 6).get() == .string("Zoë 🚗"))
        #expect(try parse(" 42 ", .int32).get() == .int(42))
        #expect(try parse("-9223372036854775808", .int64).get() == .int(Int64.min))
        #expect(try parse("012.50", .decimal, precision: 5, scale: 2).get() == .decimal("12.5"))
        #expect(try parse("yes", .boolean).get() == .bool(true))
        #expect(
            try parse("2024-02-29", .dateTime).get()
                == .dateTime(ODataInstant(millisecondsSince1970: 1_709_164_800_000)))
        #expect(
            try parse("2024-02-29 14:30", .dateTime).get()
                == .dateTime(ODataInstant(millisecondsSince1970: 1_709_217_000_000)))
        #expect(
            try parse("2024-02-29T14:30:00+01:00", .dateTimeOffset).get()
                == .dateTimeOffset(ODataInstant(millisecondsSince1970: 1_709_213_400_000, offsetMinutes: 60)))
        #expect(try parse("14:05", .time).get() == .time(ODataDuration(milliseconds: 50_700_000)))
        #expect(
            try parse("0C4B5A1E-8F4E-4C84-9A0D-6C5D2B1F9E11", .guid).get()
                == .guid("0c4b5a1e-8f4e-4c84-9a0d-6c5d2b1f9e11"))
        #expect(try parse("", .int32).get() == .null)
    }

    @Test func refused_text_says_what_is_expected() {
        func sentence(_ result: Result<ODataValue, FieldError>) -> String? {
            if case .failure(let error) = result { return error.sentence }
            return nil
        }
        #expect(sentence(parse("abcdefg", .string, maxLength: 6)) == "f takes at most 6 characters (this has 7).")
        #expect(sentence(parse("2147483648", .int32)) == "f is a whole number from -2147483648 to 2147483647.")
        #expect(sentence(parse("256", .byte)) == "f is a whole number from 0 to 255.")
        #expect(
            sentence(parse("1.234", .decimal, precision: 5, scale: 2)) == "f takes at most 2 digits after the point.")
        #expect(
            sentence(parse("1234", .decimal, precision: 5, scale: 2)) == "f takes at most 3 digits before the point.")
        #expect(sentence(parse("1e5", .decimal)) == "f is a number such as 12.50.")
        #expect(sentence(parse("2023-02-30", .dateTime)) == "f is a date such as 2024-01-31 or 2024-01-31 14:30.")
        #expect(sentence(parse("25:00", .time)) == "f is a time of day such as 14:30 or 14:30:15.")
        #expect(sentence(parse("maybe", .boolean)) == "f is true or false.")
        #expect(sentence(parse("not-a-guid", .guid))?.hasPrefix("f is a GUID") == true)
        #expect(sentence(parse("", .int32, nullable: false)) == "f is required.")
        #expect(sentence(parse("inf", .double)) == "f is a number such as 3.75.")
    }

    @Test func every_value_edits_as_text_that_reads_back_to_it() throws {
        let cases: [(ODataValue, EdmPrimitiveType)] = [
            (.string("a b"), .string), (.int(-7), .int16), (.decimal("1316.5"), .decimal), (.bool(false), .boolean),
            (.dateTime(ODataInstant(millisecondsSince1970: 1_099_242_508_000)), .dateTime),
            (.dateTime(ODataInstant(millisecondsSince1970: 1_099_180_800_000)), .dateTime),
            (
                .dateTimeOffset(ODataInstant(millisecondsSince1970: 1_623_333_779_000, offsetMinutes: 120)),
                .dateTimeOffset
            ),
            (.time(ODataDuration(milliseconds: 9_584_000)), .time),
            (.guid("0c4b5a1e-8f4e-4c84-9a0d-6c5d2b1f9e11"), .guid),
        ]
        for (value, type) in cases {
            let text = FieldInput.text(of: value)
            #expect(try parse(text, type).get() == value, "\(text)")
        }
    }
}

/// An enum-typed field (issue 37): a member by name in any case, flags by commas in any order, a member it does not
/// have refused with the members named; the value is the members as the service spells them.
@Suite struct EnumFieldInputTests {
    func input(flags: Bool, nullable: Bool = true) -> FieldInput {
        var property = Property(name: "kind", type: .primitive(.string), isNullable: nullable)
        property.enumeration = EnumType(
            qualifiedName: "G.Kind",
            members: [
                .init(name: "Annual", value: 1), .init(name: "Safety", value: 2), .init(name: "Tyres", value: 4),
            ],
            isFlags: flags)
        return FieldInput(property)
    }

    @Test func members_are_taken_as_the_type_spells_them() throws {
        #expect(try input(flags: false).parse(" safety ").get() == .string("Safety"))
        #expect(try input(flags: true).parse("tyres,annual").get() == .string("Annual,Tyres"))
        #expect(try input(flags: false).parse("").get() == .null)
    }

    @Test func a_member_it_does_not_have_is_refused_with_the_members_named() {
        guard case .failure(let error) = input(flags: false).parse("Bogus") else {
            Issue.record("Bogus was taken")
            return
        }
        #expect(error.sentence == "kind takes one of Annual, Safety, Tyres.")
        guard case .failure(let flags) = input(flags: true).parse("Annual, Horn") else {
            Issue.record("Horn was taken")
            return
        }
        #expect(flags.sentence.contains("takes any of (by commas) Annual, Safety, Tyres"))
        guard case .failure(let required) = input(flags: false, nullable: false).parse(" ") else {
            Issue.record("nothing was taken")
            return
        }
        #expect(required.sentence == "kind is required.")
    }
}
