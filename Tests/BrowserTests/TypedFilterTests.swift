import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// `:filter` with typed conditions (issue 33): the field by name or label, the value read as the property's type,
/// wrong ones refused in a sentence before anything is asked.
@Suite struct TypedFilterParseTests {
    static let properties: [Property] = {
        var amount = Property(name: "netAmount", type: .primitive(.decimal))
        amount.label = "Net Amount"
        return [
            Property(name: "status", type: .primitive(.string)), amount,
            Property(name: "count", type: .primitive(.int32)),
            Property(name: "since", type: .primitive(.dateTime)),
        ]
    }()

    func parse(_ text: String) -> TypedFilter { TypedFilter.parse(text, properties: Self.properties) }

    @Test func a_field_by_name_or_label_compared_with_a_value_of_its_type() {
        #expect(parse("status = P") == .condition(.compare("status", .eq, .string("P"), type: .string)))
        #expect(parse("Net Amount > 1000") == .condition(.compare("netAmount", .gt, .decimal("1000"), type: .decimal)))
        #expect(parse("COUNT<=3") == .condition(.compare("count", .le, .int(3), type: .int32)))
        #expect(parse("status != 'a = b'") == .condition(.compare("status", .ne, .string("a = b"), type: .string)))
        #expect(parse("status ~ pro") == .condition(.contains("status", "pro")))
        #expect(parse("status = null") == .condition(.compare("status", .eq, .null, type: .string)))
    }

    @Test func the_commas_of_a_flags_value_list_its_members_and_do_not_start_clauses() {
        var checks = Property(name: "checks", type: .primitive(.string))
        checks.enumeration = EnumType(
            qualifiedName: "G.Checks",
            members: [
                .init(name: "Brakes", value: 1), .init(name: "Lights", value: 2), .init(name: "Tyres", value: 4),
            ],
            isFlags: true)
        let properties = Self.properties + [checks]
        #expect(
            TypedFilter.parse("checks = Brakes, lights", properties: properties)
                == .condition(.member("checks", .eq, "Brakes,Lights", enumType: "G.Checks")))
        // A clause after the flags that has its own operator is a clause of its own
        #expect(
            TypedFilter.parse("checks = Brakes,Tyres, status = P", properties: properties)
                == .condition(
                    .all([
                        .member("checks", .eq, "Brakes,Tyres", enumType: "G.Checks"),
                        .compare("status", .eq, .string("P"), type: .string),
                    ])))
        // Elsewhere a comma still starts a clause, which must be a condition
        #expect(
            TypedFilter.parse("status = P, Q", properties: properties)
                == .refused("“Q” is not a condition: write field, an operator (= != > >= < <= ~), value."))
    }

    @Test func double_equals_is_equals_and_a_quote_written_twice_inside_quotes_is_one() {
        #expect(parse("status == P") == .condition(.compare("status", .eq, .string("P"), type: .string)))
        #expect(parse("status = 'O''Brien'") == .condition(.compare("status", .eq, .string("O'Brien"), type: .string)))
    }

    @Test func clauses_joined_by_and_or_commas_all_hold() {
        let both: TypedFilter = .condition(
            .all([.compare("status", .eq, .string("P"), type: .string), .compare("count", .ge, .int(2), type: .int32)]))
        #expect(parse("status = P and count >= 2") == both)
        #expect(parse("status = P, count >= 2") == both)
    }

    @Test func text_with_no_operator_is_a_search_and_wrong_conditions_are_sentences() {
        #expect(parse("samson") == .notTyped)
        guard case .refused(let unknown) = parse("colour = red") else {
            Issue.record("an unknown field was taken")
            return
        }
        #expect(unknown.contains("No field “colour” here; filter by status, netAmount, count, since."), "\(unknown)")
        guard case .refused(let wrongType) = parse("count > many") else {
            Issue.record("a word was taken for a number")
            return
        }
        #expect(wrongType.contains("whole number"), "\(wrongType)")
        guard case .refused(let containsNumber) = parse("count ~ 3"), containsNumber.contains("for text") else {
            Issue.record("~ was taken on a number")
            return
        }
        guard case .refused(let half) = parse("status = P, samson"), half.contains("“samson” is not a condition") else {
            Issue.record("a clause with no operator was taken beside a condition")
            return
        }
        guard case .refused(let ordered) = parse("count > null"), ordered.contains("Only = and !=") else {
            Issue.record("null was ordered")
            return
        }
    }

    @Test func the_services_selection_fields_are_named_first_when_a_field_is_not_found() {
        guard case .refused(let sentence) = TypedFilter.parse("x = 1", properties: Self.properties, offered: ["since"])
        else {
            Issue.record("an unknown field was taken")
            return
        }
        #expect(sentence.contains("filter by since, status, netAmount, count."), "\(sentence)")
    }
}

@MainActor
extension ScreenSnapshotTests {
    @Test func a_typed_filter_on_a_list_not_wholly_cached_is_asked_of_the_service_as_a_filter_value() throws {
        let (app, terminal, intents) = try restrictedApp(total: 500) { _ in }
        // The palette completes the fields it can filter by
        _ = app.handle([.key(.char(":"))] + "filter last".map { .key(.char($0)) })
        #expect(app.palette.completions == ["filter lastName"])
        _ = app.handle([.key(.escape)])
        _ = app.handle([.key(.char(":"))] + "filter firstName = Bob".map { .key(.char($0)) } + [.key(.enter)])
        #expect(lastAsked(intents)?.options.filter == "firstName eq 'Bob'")
        // Shown at once from the rows cached while the service answers, and said on the filter line
        #expect(names(terminal) == ["Samson, Bob"])
        #expect(terminal.lastFrame.contains { $0.contains("/firstName = Bob") }, "\(terminal.lastFrame)")
        // A field the service does not filter by is refused before anything is asked
        let (refusing, refusingTerminal, refusingIntents) = try restrictedApp(total: 500) {
            $0.nonFilterable = ["firstName"]
        }
        let asked = refusingIntents.shown.count
        _ = refusing.handle([.key(.char(":"))] + "filter firstName = Bob".map { .key(.char($0)) } + [.key(.enter)])
        #expect(refusingTerminal.lastFrame.last?.contains("The service does not filter People by firstName.") == true)
        #expect(refusingIntents.shown.count == asked)
        #expect(names(refusingTerminal).count == 3)
    }

    @Test func a_typed_filter_on_a_complete_list_is_answered_by_the_rows_values_here() throws {
        let (app, terminal, intents) = try restrictedApp(total: 3) { $0.isFilterable = false }
        _ = app.handle([.key(.char(":"))] + "filter personID >= 2".map { .key(.char($0)) } + [.key(.enter)])
        #expect(names(terminal) == ["Ærøskøbing-Łódź, Zoë", "O'Neil, Renée"])
        #expect(
            !intents.shown.contains { shown in
                guard case .list(let request) = shown.0 else { return false }
                return request.options.filter != nil
            })
        // A plain search afterwards replaces it
        _ = app.handle([.key(.char(":"))] + "filter samson".map { .key(.char($0)) } + [.key(.enter)])
        #expect(names(terminal) == ["Samson, Bob"])
        // And a wrong one is a sentence that leaves the list as it was
        _ = app.handle([.key(.char(":"))] + "filter personID > two".map { .key(.char($0)) } + [.key(.enter)])
        #expect(terminal.lastFrame.last?.contains("whole number") == true, "\(terminal.lastFrame.last ?? "")")
        #expect(names(terminal) == ["Samson, Bob"])
    }

    @Test func rows_read_without_the_field_filtered_by_say_so_rather_than_answer_as_if_it_were_empty() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 100, rows: 12))
        // Bob's cars, read through his list without the time each was last changed
        _ = app.handle([.key(.char("j")), .key(.char("j")), .key(.enter)])
        #expect(terminal.lastFrame.joined().contains("Explorer"), "\(terminal.lastFrame)")
        _ = app.handle([.key(.char(":"))] + "filter createStamp > 2000-01-01".map { .key(.char($0)) } + [.key(.enter)])
        #expect(
            terminal.lastFrame.last?.contains("Some of these rows were read without createStamp") == true,
            "\(terminal.lastFrame.last ?? "")")
        #expect(terminal.lastFrame.joined().contains("Explorer") && terminal.lastFrame.joined().contains("Mustang"))
        // A field they hold filters them here
        _ = app.handle([.key(.char(":"))] + "filter model = Mustang".map { .key(.char($0)) } + [.key(.enter)])
        #expect(!terminal.lastFrame.joined().contains("Explorer") && terminal.lastFrame.joined().contains("Mustang"))
    }
}
