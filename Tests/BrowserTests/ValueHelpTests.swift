import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// Value help in a form (issue 33): F4 on a field whose property has a `Common.ValueList` opens the list of its
/// values; Enter on one writes it into the form; a value the service fixes is refused when it is not listed.
@MainActor
@Suite struct ValueHelpTests {
    /// People whose last name (for the test's sake) takes the make of a car: the value list is the car set, the last
    /// name written from its make, the model shown beside it.
    func app(fixed: Bool = false) throws -> (BrowserApp, HeadlessTerminal, RecordingWrites) {
        try app { lastName in
            lastName.valueList = ValueList(
                collectionPath: "Car", label: "Makes",
                parameters: [
                    .init(kind: .inOut, localProperty: "lastName", valueListProperty: "make"),
                    .init(kind: .displayOnly, localProperty: nil, valueListProperty: "model"),
                ])
            lastName.hasFixedValues = fixed
        }
    }

    /// Ann Smith in the people list (and two cars in theirs), her last name as `lastName` makes it.
    func app(lastName change: (inout Property) -> Void) throws -> (BrowserApp, HeadlessTerminal, RecordingWrites) {
        let cache = try temporaryCache()
        try seedPeople(cache, people: [(1, "Ann", "Smith", [(10, 20, "Skoda", "Octavia"), (11, 21, "Ford", "Focus")])])
        try cache.writeBlocking { session in
            try session.writeListPage(
                ListRequest(entitySet: "Person").key, offset: 0, entityKeys: ["Person(1)"], totalCount: 1,
                nextLink: nil, isLastPage: true, at: Date())
            try session.writeListPage(
                ListRequest(entitySet: "Car").key, offset: 0, entityKeys: ["Car(20)", "Car(21)"], totalCount: 2,
                nextLink: nil, isLastPage: true, at: Date())
        }
        var model = CarDealerModel.plainModel
        let type = try #require(model.entitySet(named: "Person")?.entityType)
        let index = try #require(model.entityTypes[type]?.properties.firstIndex { $0.name == "lastName" })
        change(&model.entityTypes[type]!.properties[index])
        let writes = RecordingWrites()
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), writes: writes, model: model,
            profile: DisplayProfile.defaults(for: model))
        let (app, terminal) = BrowserApp.presented(environment, size: TerminalSize(columns: 90, rows: 14))
        return (app, terminal, writes)
    }

    func frame(_ terminal: HeadlessTerminal) -> String { terminal.lastFrame.joined(separator: "\n") }

    /// The form on Ann, its focus on the last name.
    func lastNameFocused(_ app: BrowserApp, _ terminal: HeadlessTerminal) throws {
        _ = app.handle([.key(.char("e"))])
        for _ in 0..<6 where !(terminal.lastFrame.contains { $0.hasPrefix("▌") && $0.contains("lastName") }) {
            _ = app.handle([.key(.tab)])
        }
        #expect(terminal.lastFrame.contains { $0.hasPrefix("▌") && $0.contains("lastName") }, "\(frame(terminal))")
    }

    @Test func f4_lists_the_values_and_enter_writes_the_chosen_one_into_the_form() throws {
        let (app, terminal, writes) = try app()
        try lastNameFocused(app, terminal)
        // The footer offers it
        #expect(frame(terminal).contains("F4 lists values"), "\(frame(terminal))")
        // When F4 is pressed
        _ = app.handle([.key(.function(4))])
        // Then the value list is on screen, titled by its label, saying what Enter does
        #expect(app.stack.top is EntityListController)
        let picker = frame(terminal)
        #expect(picker.contains("Makes") && picker.contains("Skoda") && picker.contains("Ford"), "\(picker)")
        #expect(picker.contains("Enter takes it for lastName"), "\(picker)")
        // When the second is chosen
        _ = app.handle([.key(.char("j")), .key(.enter)])
        // Then the form holds its make, and saving hands it on
        #expect(app.stack.top is EditFormController)
        #expect(terminal.lastFrame.contains { $0.contains("lastName") && $0.contains("Ford") }, "\(frame(terminal))")
        _ = app.handle([.key(.enter)])
        #expect(writes.saved.map(\.changes) == [[ODataProperty(name: "lastName", value: .string("Ford"))]])
    }

    @Test func a_value_the_service_fixes_is_refused_when_it_is_not_listed() throws {
        let (app, terminal, writes) = try app(fixed: true)
        try lastNameFocused(app, terminal)
        // When a make that is not listed is typed and saved
        _ = app.handle([.key(.ctrl("u"))] + "Lada".map { .key(.char($0)) } + [.key(.enter)])
        // Then it is refused next to the field, and nothing is handed on
        #expect(frame(terminal).contains("lastName: not one of the 2 values listed"), "\(frame(terminal))")
        #expect(writes.saved.isEmpty)
        // When a listed one is typed
        _ = app.handle([.key(.ctrl("u"))] + "Skoda".map { .key(.char($0)) } + [.key(.enter)])
        #expect(writes.saved.map(\.changes) == [[ODataProperty(name: "lastName", value: .string("Skoda"))]])
    }

    @Test func a_refused_value_saved_again_is_sent_for_the_service_to_decide() throws {
        let (app, terminal, writes) = try app(fixed: true)
        try lastNameFocused(app, terminal)
        _ = app.handle([.key(.ctrl("u"))] + "Lada".map { .key(.char($0)) } + [.key(.enter)])
        #expect(frame(terminal).contains("Enter again sends what is not listed"), "\(frame(terminal))")
        #expect(writes.saved.isEmpty)
        // (the cached list may be older than the service's)
        _ = app.handle([.key(.enter)])
        #expect(writes.saved.map(\.changes) == [[ODataProperty(name: "lastName", value: .string("Lada"))]])
    }

    @Test func an_empty_field_with_fixed_values_does_not_stop_a_save() throws {
        let (app, terminal, writes) = try app(fixed: true)
        try lastNameFocused(app, terminal)
        // When the field is emptied and saved
        _ = app.handle([.key(.ctrl("u")), .key(.enter)])
        // Then nothing asks for one of the listed values
        #expect(!frame(terminal).contains("not one of the"), "\(frame(terminal))")
        #expect(writes.saved.count == 1)
    }

    @Test func a_field_without_value_help_says_so_on_f4() throws {
        let (app, terminal, _) = try app()
        _ = app.handle([.key(.char("e"))])
        // (the focus is on the first name)
        _ = app.handle([.key(.function(4))])
        #expect(app.stack.top is EditFormController)
        #expect(frame(terminal).contains("has no value help"), "\(frame(terminal))")
    }
}

/// A form on an entity whose enum value is spelled otherwise than the client would (issue 37): left as it came, it is
/// no change and no reason to refuse the form.
@MainActor
@Suite struct UntouchedEnumFieldTests {
    @Test func a_value_left_as_the_service_sent_it_is_neither_sent_nor_refused() throws {
        // (Ann's last name stands for flags the service spells in its own way; "Smith" is no member at all)
        let (app, _, writes) = try ValueHelpTests().app { lastName in
            lastName.enumeration = EnumType(
                qualifiedName: "G.Checks", members: [.init(name: "Brakes", value: 1), .init(name: "Tyres", value: 4)],
                isFlags: true)
        }
        // When the first name alone is changed and saved (the focus starts on it)
        _ = app.handle([.key(.char("e")), .key(.ctrl("u"))] + "Anna".map { .key(.char($0)) } + [.key(.enter)])
        // Then only the first name is sent
        #expect(writes.saved.map(\.changes) == [[ODataProperty(name: "firstName", value: .string("Anna"))]])
    }
}
