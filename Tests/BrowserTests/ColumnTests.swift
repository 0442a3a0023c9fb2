import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// Columns (issue 15): without a profile every property is a column as wide as its data; columns hide and show.
@MainActor
@Suite struct ColumnTests {
    /// The CarDealer cache with three people, browsed without a profile.
    func app(columns: Int = 120) throws -> (BrowserApp, HeadlessTerminal) {
        let cache = try temporaryCache()
        try seedPeople(
            cache,
            people: [
                (1, "Ann", "Smith", []), (2, "Bartholomew", "Featherstonehaugh-Wolfeschlegel", []),
                (3, "Cy", "Ng", []),
            ])
        let people = ListRequest(entitySet: "Person")
        try cache.writeBlocking { session in
            try session.writeListPage(
                people.key, offset: 0, entityKeys: ["Person(1)", "Person(2)", "Person(3)"], totalCount: 3,
                nextLink: nil, isLastPage: true, at: Date())
        }
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), model: CarDealerModel.plainModel,
            profile: DisplayProfile(root: nil, sets: [:]))
        let (app, terminal) = BrowserApp.presented(environment, size: TerminalSize(columns: columns, rows: 10))
        return (app, terminal)
    }

    /// The header's column titles, in order.
    func titles(_ terminal: HeadlessTerminal) -> [String] {
        terminal.lastFrame[1].split(separator: " ").map(String.init).filter { !["▲", "▼", "‹", "›"].contains($0) }
    }

    @Test func without_a_profile_every_property_is_a_column_as_wide_as_its_values() throws {
        let (_, terminal) = try app()
        let header = terminal.lastFrame[1]
        let properties = try CarDealerModel.plainModel.properties(
            of: #require(CarDealerModel.plainModel.entityType(ofSet: "Person"))
        ).map(\.name)
        // The label first, then each property the label does not show
        #expect(titles(terminal).first == "Person")
        for name in properties where !["firstName", "lastName"].contains(name) {
            #expect(header.contains(name), "\(name) missing from \(header)")
        }
        // The label column is as wide as the longest name drawn, up to its limit; the next column starts after it
        let longest = min(EntityListController.widestLabel, "Bartholomew Featherstonehaugh-Wolfeschlegel".count)
        let second = try #require(properties.first { !["firstName", "lastName"].contains($0) })
        // (a number: right-aligned in a column as wide as its title and the sort mark's room)
        let secondEnd = try #require(header.range(of: second)).upperBound
        #expect(
            header.distance(from: header.startIndex, to: secondEnd)
                == SelectionGutter.width + longest + 1 + EntityListController.headerWidth(second), "\(header)")
        #expect(terminal.lastFrame[3].contains("Bartholomew Featherstonehaugh-W"), "\(terminal.lastFrame[3])")
    }

    @Test func minus_hides_the_first_shown_column_plus_and_show_bring_them_back() throws {
        let (app, terminal) = try app(columns: 60)
        let before = titles(terminal)
        try #require(before.count >= 3)
        // > makes the second column the first shown; - hides it, in every list of the set
        _ = app.handle([.key(.char(">")), .key(.char("-"))])
        #expect(!titles(terminal).contains(before[1]), "\(titles(terminal))")
        #expect(terminal.lastFrame.last?.contains("Hid “\(before[1])”") == true, "\(terminal.lastFrame.last ?? "")")
        // :hide by name, any case; an unknown name is answered with the names there are
        _ = app.handle([.key(.char(":"))] + "hide \(before[2].uppercased())".map { .key(.char($0)) } + [.key(.enter)])
        #expect(!terminal.lastFrame[1].contains(before[2]))
        _ = app.handle([.key(.char(":"))] + "hide nothing".map { .key(.char($0)) } + [.key(.enter)])
        #expect(terminal.lastFrame.last?.contains("No column “nothing”") == true)
        // :show NAME brings one back; + brings back the rest
        _ = app.handle([.key(.char(":"))] + "show \(before[1])".map { .key(.char($0)) } + [.key(.enter)])
        #expect(terminal.lastFrame[1].contains(before[1]) && !terminal.lastFrame[1].contains(before[2]))
        _ = app.handle([.key(.char("+"))])
        #expect(terminal.lastFrame[1].contains(before[2]))
        #expect(terminal.lastFrame.last?.contains("Showing every column again") == true)
    }

    @Test func the_last_column_stays_and_the_sort_follows_its_column() throws {
        let (app, terminal) = try app()
        let before = titles(terminal)
        // Sorted by the second column (s: first ascending, descending, then the second)
        _ = app.handle([.key(.char("s")), .key(.char("s")), .key(.char("s"))])
        #expect(terminal.lastFrame[1].contains("\(before[1]) ▲"), "\(terminal.lastFrame[1])")
        // Hiding the first column keeps the sort on the one it was on
        _ = app.handle([.key(.char("-"))])
        #expect(terminal.lastFrame[1].contains("\(before[1]) ▲"), "\(terminal.lastFrame[1])")
        // Hiding every column leaves one
        _ = app.handle(Array(repeating: .key(.char("-")), count: before.count + 2))
        #expect(titles(terminal).count == 1)
        #expect(terminal.lastFrame.last?.contains("is the only column left") == true)
    }
}

/// Columns a service describes (issue 33): its `UI.LineItem` in order under its labels, its `UI.HeaderInfo`'s
/// plural type name as the title; without a line item, every property under its `Common.Label` or `sap:label`.
@MainActor
@Suite struct AnnotatedColumnTests {
    func app(_ change: (inout EntityType) -> Void) throws -> HeadlessTerminal {
        let cache = try temporaryCache()
        try seedPeople(cache, people: [(1, "Ann", "Smith", []), (2, "Cy", "Ng", [])])
        let people = ListRequest(entitySet: "Person")
        try cache.writeBlocking { session in
            try session.writeListPage(
                people.key, offset: 0, entityKeys: ["Person(1)", "Person(2)"], totalCount: 2, nextLink: nil,
                isLastPage: true, at: Date())
        }
        var model = CarDealerModel.plainModel
        let name = try #require(model.entitySet(named: "Person")?.entityType)
        change(&model.entityTypes[name]!)
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), model: model,
            profile: DisplayProfile.defaults(for: model))
        let (_, terminal) = BrowserApp.presented(environment, size: TerminalSize(columns: 100, rows: 8))
        return terminal
    }

    func label(_ property: String, _ label: String) -> (inout EntityType) -> Void {
        { type in
            if let index = type.properties.firstIndex(where: { $0.name == property }) {
                type.properties[index].label = label
            }
        }
    }

    @Test func a_line_item_is_the_lists_columns_in_order_under_its_labels_and_the_plural_its_title() throws {
        let terminal = try app { type in
            type.ui = UIAnnotations(
                lineItem: [
                    DataField(path: "lastName", label: "Family name"), DataField(path: "personID"),
                    DataField(path: "noSuchProperty"), DataField(path: "firstName"),
                ], typeName: "Customer", typeNamePlural: "Customers")
            self.label("personID", "No.")(&type)
        }
        let header = terminal.lastFrame[1]
        // The field's own label, else the property's, else its name; a path to nothing is no column
        let family = try #require(header.range(of: "Family name"))
        let number = try #require(header.range(of: "No."))
        let first = try #require(header.range(of: "firstName"))
        #expect(family.upperBound <= number.lowerBound && number.upperBound <= first.lowerBound, "\(header)")
        for absent in ["ssn", "createDate", "noSuchProperty", "Person"] {
            #expect(!header.contains(absent), "\(header)")
        }
        #expect(terminal.lastFrame[0].contains("Customers"))
        #expect(terminal.lastFrame[2].contains("Smith") && terminal.lastFrame[2].contains("Ann"))
    }

    @Test func without_a_line_item_every_property_is_headed_by_its_label() throws {
        let terminal = try app(label("createDate", "Customer since"))
        let header = terminal.lastFrame[1]
        #expect(header.contains("Customer since") && !header.contains("createDate"), "\(header)")
        #expect(header.contains("ssn"))  // no label: its name
    }

    @Test func a_property_the_service_hides_is_no_column_of_a_list_without_a_line_item() throws {
        let terminal = try app { type in
            if let index = type.properties.firstIndex(where: { $0.name == "ssn" }) {
                type.properties[index].isHidden = true
            }
        }
        #expect(!terminal.lastFrame[1].contains("ssn") && terminal.lastFrame[1].contains("createDate"))
    }

    @Test func hostile_labels_are_shown_sanitised_and_cut() throws {
        let terminal = try app(label("ssn", "\u{1B}]0;pwned\u{07}" + String(repeating: "W", count: 500)))
        let header = terminal.lastFrame[1]
        #expect(!header.contains("\u{1B}") && !header.contains("\u{07}"))
        #expect(!header.contains(String(repeating: "W", count: EntityListController.widestColumn + 1)))
    }
}

/// `UI.Criticality` on a list (issue 33): a value is drawn in the theme's colour for its level, led by a mark that
/// says the same without colour; by a path to the level on the row itself, or once for all; `WithoutIcon` keeps the
/// colour and drops the mark; a neutral level is drawn as any value.
@MainActor
@Suite struct CriticalityColumnTests {
    func app() throws -> HeadlessTerminal {
        try AnnotatedColumnTests().app { type in
            var calm = DataField(path: "firstName")
            calm.criticality = .fixed(.positive)
            calm.marksCriticality = false
            var byNumber = DataField(path: "lastName")
            // (person 1's level is 1, negative; person 2's is 2, critical)
            byNumber.criticality = .path("personID")
            var neutral = DataField(path: "personID")
            neutral.criticality = .fixed(.neutral)
            type.ui = UIAnnotations(lineItem: [byNumber, calm, neutral])
        }
    }

    func style(_ terminal: HeadlessTerminal, row: Int, of text: String) throws -> CellStyle {
        let line = terminal.lastFrame[row]
        let start = try #require(line.range(of: text)).lowerBound
        let column = DisplayWidth.width(of: String(line[..<start]))
        return try #require(terminal.lastBuffer)[row, column].style
    }

    @Test func a_level_by_path_colours_and_marks_the_value() throws {
        let terminal = try app()
        #expect(terminal.lastFrame[2].contains("✗ Smith"), "\(terminal.lastFrame)")
        #expect(terminal.lastFrame[3].contains("! Ng"), "\(terminal.lastFrame)")
        #expect(try style(terminal, row: 2, of: "Smith").role == .error)
        #expect(try style(terminal, row: 3, of: "Ng").role == .warning)
    }

    @Test func without_icon_keeps_the_colour_and_neutral_is_plain() throws {
        let terminal = try app()
        #expect(!terminal.lastFrame[2].contains("✓"), "\(terminal.lastFrame)")
        #expect(try style(terminal, row: 2, of: "Ann").role == .success)
        // (the person's number, after the first name)
        let line = terminal.lastFrame[2]
        let ann = try #require(line.range(of: "Ann"))
        let number = try #require(line.range(of: "1", range: ann.upperBound..<line.endIndex)).lowerBound
        #expect(try #require(terminal.lastBuffer)[2, DisplayWidth.width(of: String(line[..<number]))].style == .plain)
        #expect(!line.contains("✓"), "\(line)")
    }
}
