import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// A detail in the sections the service declares (issue 33): `UI.Facets` to field groups and a navigation's line
/// item, then what no section shows under "More"; the cursor steps over the headings.
@MainActor
@Suite struct DetailSectionTests {
    func detail(_ ui: UIAnnotations) throws -> (BrowserApp, EntityDetailController, HeadlessTerminal) {
        let cache = try temporaryCache()
        try seedPeople(cache, people: [(1, "Ann", "Smith", [(1, 2, "Ford", "Explorer")])])
        var model = CarDealerModel.plainModel
        let type = try #require(model.entitySet(named: "Person")?.entityType)
        model.entityTypes[type]?.ui = ui
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), model: model, profile: DisplayProfile.defaults(for: model))
        let detail = EntityDetailController(
            environment: environment, key: EntityKey(entitySet: "Person", value: .int(1)),
            breadcrumb: "Ann")
        let (app, terminal) = BrowserApp.presented(
            environment, size: TerminalSize(columns: 80, rows: 16), root: detail)
        return (app, detail, terminal)
    }

    static let sections = UIAnnotations(
        facets: [
            Facet(label: "Name", target: .fieldGroup("Name")),
            Facet(label: "Their cars", target: .lineItem(navigation: "PersonCar")),
            Facet(label: "Nowhere", target: .fieldGroup("Missing")),
        ],
        fieldGroups: [
            "Name": FieldGroup(
                label: "Name", data: [DataField(path: "lastName", label: "Family name"), DataField(path: "firstName")])
        ])

    @Test func the_facets_are_sections_and_the_rest_comes_under_more() throws {
        let (_, detail, terminal) = try detail(Self.sections)
        let lines = detail.lines.map { ($0.isHeading ? "# " : "") + $0.label + ($0.navigation != nil ? " ›" : "") }
        // A facet to a group the service does not declare shows nothing; no field is shown twice or hidden
        #expect(lines == ["# Name", "Family name", "firstName", "Their cars ›", "# More", "personID", "createDate"])
        #expect(terminal.lastFrame.joined().contains("Smith"))
        // The cursor starts on the first field, not on a heading
        #expect(detail.cursor.selected == 1)
    }

    @Test func the_cursor_steps_over_headings_both_ways() throws {
        let (app, detail, _) = try detail(Self.sections)
        _ = app.handle([.key(.down), .key(.down), .key(.down)])
        #expect(detail.lines[detail.cursor.selected].label == "personID")  // "More" stepped over
        _ = app.handle([.key(.up)])
        #expect(detail.lines[detail.cursor.selected].label == "Their cars")
        _ = app.handle([.key(.up), .key(.up), .key(.up)])
        #expect(detail.cursor.selected == 1)  // not on "Name" at the top
    }

    @Test func enter_on_a_line_item_section_opens_that_navigation() throws {
        let (app, detail, _) = try detail(Self.sections)
        let cars = try #require(detail.lines.firstIndex { $0.navigation == "PersonCar" })
        _ = app.handle(Array(repeating: .key(.down), count: cars - detail.cursor.selected) + [.key(.enter)])
        #expect(app.stack.top is EntityListController)
        #expect(app.stack.breadcrumb.last == "Their cars")  // the section's label
    }

    @Test func without_facets_the_detail_is_as_before() throws {
        let (_, detail, _) = try detail(UIAnnotations())
        #expect(!detail.lines.contains { $0.isHeading })
        #expect(detail.lines.map(\.label).prefix(4) == ["personID", "firstName", "lastName", "createDate"])
    }
}
