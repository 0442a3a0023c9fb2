import CarDealerTestSupport
import Foundation
import ODataCore
import Terminal
import Testing

@testable import Browser

/// Value help in `:filter` (issue 33): Tab completes a clause's value from the field's value list as cached, and F4
/// opens that list to pick from, the palette coming back with the value in place.
@MainActor
extension ValueHelpTests {
    func typeCommand(_ app: BrowserApp, _ text: String) {
        _ = app.handle([.key(.char(":"))] + text.map { .key(.char($0)) })
    }

    @Test func tab_completes_a_filters_value_from_the_cached_value_list() throws {
        let (app, terminal, _) = try app()
        typeCommand(app, "filter lastName = ")
        _ = app.handle([.key(.tab)])
        // Two values: both offered above the line, the line as it was
        #expect(app.palette.text == "filter lastName = ")
        #expect(
            frame(terminal).contains("filter lastName = Skoda") && frame(terminal).contains("filter lastName = Ford"))
        // One that fits what was typed (either case) is taken
        _ = app.handle([.key(.char("f")), .key(.tab)])
        #expect(app.palette.text == "filter lastName = Ford")
        // And a later clause's value too, after the first
        _ = app.handle(" and lastName != s".map { .key(.char($0)) } + [.key(.tab)])
        #expect(app.palette.text == "filter lastName = Ford and lastName != Skoda")
        // A field with no values to offer completes nothing
        _ = app.handle([.key(.escape)])
        typeCommand(app, "filter firstName = A")
        _ = app.handle([.key(.tab)])
        #expect(app.palette.text == "filter firstName = A")
        #expect(frame(terminal).contains("No values here to complete; F4 opens the field's value list"))
    }

    @Test func f4_in_a_filter_picks_a_value_from_the_value_list_and_the_line_comes_back_with_it() throws {
        let (app, terminal, _) = try app()
        typeCommand(app, "filter lastName = Sk")
        _ = app.handle([.key(.function(4))])
        // The value list, saying what Enter does
        #expect(app.stack.controllers.count == 2, "\(frame(terminal))")
        #expect(frame(terminal).contains("Enter takes it for :filter lastName"), "\(frame(terminal))")
        _ = app.handle([.key(.char("j")), .key(.enter)])
        // The palette is back with the chosen value, over the list it filters
        #expect(app.palette.isOpen && app.palette.text == "filter lastName = Ford", "\(app.palette.text)")
        #expect(terminal.lastFrame.last?.contains(":filter lastName = Ford") == true)
        _ = app.handle([.key(.enter)])
        #expect(frame(terminal).contains("lastName = Ford"), "\(frame(terminal))")
    }

    @Test func f4_where_there_are_no_values_to_list_says_why_and_keeps_the_line() throws {
        let (app, terminal, _) = try app()
        for (line, sentence) in [
            ("filter firstName = A", "firstName has no value help"),
            ("filter nothing = A", "No field “nothing” here"),
            ("export x", "F4 lists a field's values after :filter FIELD ="),
        ] {
            typeCommand(app, line)
            _ = app.handle([.key(.function(4))])
            #expect(app.palette.isOpen && app.palette.text == line)
            #expect(frame(terminal).contains(sentence), "\(frame(terminal))")
            _ = app.handle([.key(.escape)])
        }
    }

    @Test func the_value_being_typed_is_found_after_the_last_operator_and_written_so_it_reads_back() {
        #expect(TypedFilter.valueBeingTyped("make = To")! == ("make = ", "make", "To"))
        #expect(
            TypedFilter.valueBeingTyped("a = 1 and Net Value >\"x")! == ("a = 1 and Net Value > ", "Net Value", "x"))
        #expect(TypedFilter.valueBeingTyped("a = 'x, y', b ~ ")! == ("a = 'x, y', b ~ ", "b", ""))
        #expect(TypedFilter.valueBeingTyped("make") == nil)
        #expect(TypedFilter.valueBeingTyped("= x") == nil)
        for value in ["Land Rover", "null", "say \"hi\"", "a,b", "O'Brien", ""] {
            let line = "name = " + TypedFilter.typedValue(value)
            guard
                case .condition(.compare(_, _, let read, _)) = TypedFilter.parse(
                    line, properties: [Property(name: "name", type: .primitive(.string))])
            else {
                Issue.record("\(line) is not read as a condition")
                continue
            }
            #expect(read == .string(value), "\(line)")
        }
    }
}
