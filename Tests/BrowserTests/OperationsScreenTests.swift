import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// `!` on a list (issue 36): what the service offers, by section, unavailable ones dimmed with the reason, and a
/// function that answers with a list asked for its parameters and opened as a list keyed by the call.
@MainActor
extension ScreenSnapshotTests {
    /// The seeded People list on a model that offers an unbound function listing cars by make, and an action on a
    /// person the service does not offer now.
    func operationsApp(
        writes: RecordingWrites? = nil, note adjust: (inout ServiceOperation) -> Void = { _ in }
    ) throws -> (BrowserApp, HeadlessTerminal, RecordingIntents) {
        var model = CarDealerModel.model
        let person = try #require(model.entityType(ofSet: "Person")).qualifiedName
        let car = try #require(model.entityType(ofSet: "Car")).qualifiedName
        var byMake = ServiceOperation(
            kind: .function, name: "CarsMadeBy",
            parameters: [.init(name: "make", type: .primitive(.string), isNullable: false)],
            returnType: .collection(.named(car)), method: .get, dialect: .v2)
        byMake.entitySet = "Car"
        byMake.label = "Cars made by"
        var retire = ServiceOperation(kind: .action, name: "Retire", method: .post, dialect: .v2)
        retire.boundType = person
        retire.availability = .never
        var note = ServiceOperation(
            kind: .action, name: "Note",
            parameters: [.init(name: "text", type: .primitive(.string), isNullable: false)],
            method: .post, dialect: .v2)
        note.boundType = person
        note.label = "Add a note"
        adjust(&note)
        model.operations = [retire, note, byMake]
        let (_, _, cache) = try seededApp()
        let intents = RecordingIntents()
        let environment = BrowserEnvironment(
            cache: cache, intents: intents, writes: writes, model: model, profile: DisplayProfile.carDealer!,
            now: { Self.fixedNow }, timeZone: TimeZone(identifier: "UTC")!)
        let (app, terminal) = BrowserApp.presented(environment, size: TerminalSize(columns: 100, rows: 12))
        return (app, terminal, intents)
    }

    @Test func bang_lists_what_the_service_offers_and_a_listing_function_opens_its_answer_as_a_list() throws {
        let (app, terminal, intents) = try operationsApp(writes: RecordingWrites())
        _ = app.handle([.key(.char("!"))])
        let menu = terminal.lastFrame.joined(separator: "\n")
        #expect(menu.contains("On Ærøskøbing-Łódź, Zoë"), "\(menu)")
        #expect(menu.contains("Retire") && menu.contains("action · the service does not offer it now"), "\(menu)")
        #expect(menu.contains("Of the service") && menu.contains("Cars made by"), "\(menu)")
        // The cursor starts on what can be invoked; the unavailable one says why
        _ = app.handle([.key(.char("k")), .key(.enter)])
        #expect(terminal.lastFrame.contains { $0.contains("Retire: the service does not offer it now.") })
        // Enter on the function asks for its parameter, required
        _ = app.handle([.key(.char("j")), .key(.char("j")), .key(.enter)])
        #expect(terminal.lastFrame.contains { $0.contains("Cars made by") && !$0.contains("Of the service") })
        _ = app.handle([.key(.enter)])
        #expect(terminal.lastFrame.joined().contains("is required"), "\(terminal.lastFrame)")
        #expect(
            !intents.shown.contains {
                if case .list(let request) = $0.0 { request.path.segments[0].name == "CarsMadeBy" } else { false }
            })
        // Typed, the answer takes the form's place: a list of cars keyed by the call
        _ = app.handle("Ford".map { .key(.char($0)) } + [.key(.enter)])
        guard case .list(let request)? = intents.shown.last?.0 else {
            Issue.record("no list was asked for: \(intents.shown)")
            return
        }
        #expect(request.path.segments.map(\.name) == ["CarsMadeBy"])
        #expect(request.options.custom.map(\.name) == ["make"] && request.options.custom.map(\.value) == ["'Ford'"])
        #expect(request.key.canonical == "CarsMadeBy?make='Ford'")
        #expect(terminal.lastFrame[0].contains("Cars made by Ford"), "\(terminal.lastFrame[0])")
        // And Esc goes back to the operations, not to the form
        _ = app.handle([.key(.escape)])
        #expect(terminal.lastFrame.joined().contains("Of the service"))
    }

    @Test func an_action_on_the_row_asks_for_its_parameters_then_asks_before_it_is_queued() throws {
        let writes = RecordingWrites()
        let (app, terminal, _) = try operationsApp(writes: writes)
        _ = app.handle([.key(.char("!")), .key(.enter)])
        // Its parameter first
        #expect(terminal.lastFrame.joined().contains("Add a note"), "\(terminal.lastFrame)")
        _ = app.handle("Paid in full".map { .key(.char($0)) } + [.key(.enter)])
        // Then the question, naming it, the row and what was typed; any key but y sends nothing
        let question = terminal.lastFrame.joined()
        #expect(question.contains("Add a note on Ærøskøbing-Łódź, Zoë (text Paid in full)? y sends it"), "\(question)")
        _ = app.handle([.key(.char("n"))])
        #expect(writes.invoked.isEmpty)
        // Asked again and answered y, it is handed to the outbox with the version the row had
        _ = app.handle([.key(.enter)])
        _ = app.handle("Paid".map { .key(.char($0)) } + [.key(.enter), .key(.char("y"))])
        #expect(writes.invoked.count == 1)
        let invocation = try #require(writes.invoked.first)
        #expect(invocation.key == "Person(2)" && invocation.operation == "Note")
        #expect(invocation.parameters == [.init(name: "text", value: .string("Paid"))])
        // And the list is back on top
        #expect(!terminal.lastFrame.joined().contains("Of the service"))
    }

    @Test func an_actions_parameter_starts_at_its_default_and_f4_picks_it_from_its_value_list() throws {
        let writes = RecordingWrites()
        let (app, terminal, _) = try operationsApp(writes: writes) { note in
            note.parameters[0].defaultValue = "Paid"
            note.parameters[0].valueList = ValueList(
                collectionPath: "Car", label: "Makes",
                parameters: [.init(kind: .out, localProperty: "text", valueListProperty: "make")])
        }
        try app.environment.testCache.writeBlocking { session in
            try session.writeListPage(
                ListRequest(entitySet: "Car").key, offset: 0, entityKeys: ["Car(2)", "Car(7)"], totalCount: 2,
                nextLink: nil, isLastPage: true, at: Self.fixedNow)
        }
        _ = app.handle([.key(.char("!")), .key(.enter)])
        // The form starts at the service's default, and offers the value help
        let form = terminal.lastFrame.joined(separator: "\n")
        #expect(form.contains("Paid") && form.contains("F4 lists values"), "\(form)")
        // F4: the value list; Enter on its second row writes its make into the parameter
        _ = app.handle([.key(.function(4))])
        #expect(terminal.lastFrame.joined().contains("Enter takes it for text"), "\(terminal.lastFrame)")
        _ = app.handle([.key(.char("j")), .key(.enter)])
        #expect(terminal.lastFrame.contains { $0.contains("Škoda") }, "\(terminal.lastFrame)")
        // And the question names it, and y hands it on
        _ = app.handle([.key(.enter)])
        #expect(terminal.lastFrame.joined().contains("(text Škoda)? y sends it"), "\(terminal.lastFrame)")
        _ = app.handle([.key(.char("y"))])
        #expect(writes.invoked.first?.parameters == [.init(name: "text", value: .string("Škoda"))])
    }

    @Test func a_function_answering_a_value_opens_its_answer_from_the_cache_and_says_a_failure() throws {
        let (app, terminal, intents) = try operationsApp { note in
            // (the action's place taken by a function of the row that answers a text)
            note = ServiceOperation(
                kind: .function, name: "Describe", returnType: .primitive(.string), method: .get, dialect: .v2)
            note.boundType = "edmexampleModel.Person"
            note.label = "Describe"
        }
        _ = app.handle([.key(.char("!"))])
        #expect(terminal.lastFrame.joined().contains("Describe"), "\(terminal.lastFrame)")
        _ = app.handle([.key(.enter)])
        // Its answer is asked for, under the call (the row's key as v2 names it)
        guard case .call(let call)? = intents.shown.last?.0 else {
            Issue.record("no call was asked for: \(intents.shown)")
            return
        }
        #expect(call.key.canonical == "Describe?personID=2")
        #expect(terminal.lastFrame.joined().contains("loading…"))
        // A failure is said where the answer would be
        try app.environment.testCache.writeBlocking {
            try $0.setFetchError(subject: call.key.canonical, message: "HTTP 501: not here", at: Self.fixedNow)
        }
        _ = app.handle([.key(.resize)])
        #expect(terminal.lastFrame.joined().contains("The service could not answer: HTTP 501: not here"))
        // When the fetcher files it, it shows
        try app.environment.testCache.writeBlocking {
            try $0.writeCallResult(call.key.canonical, entityKey: nil, value: #""Zoë, a customer""#, at: Self.fixedNow)
        }
        app.presentIfNeeded()
        _ = app.handle([.key(.resize)])
        #expect(terminal.lastFrame.joined().contains("Zoë, a customer"), "\(terminal.lastFrame)")
        // A record's fields each on a line of their own
        #expect(
            CallResultController.lines(ofJSON: #"{"amount":12.5,"currency":"EUR"}"#).map { $0.name + "=" + $0.text }
                == ["amount=12.5", "currency=EUR"])
        // In the service's order, a key with a quote in it too
        #expect(
            CallResultController.lines(ofJSON: #"{"name":"A \"b\": c","city":"X","id\"":1}"#).map(\.name)
                == ["name", "city", "id\""])
    }

    /// A decimal answer of a function whose return type declares a scale shows that many places (v4 sends it as a
    /// JSON number: `0.00` arrives as `0.0`); one with no scale shows as it came.
    @Test func a_decimal_answer_shows_the_places_of_its_return_types_scale() throws {
        for (scale, stored, shown) in [(2, "0.0", "0.00"), (2, "1234.5", "1,234.50"), (nil, "0.0", "0.0")] {
            let (app, terminal, intents) = try operationsApp { note in
                note = ServiceOperation(
                    kind: .function, name: "NS.Cost", returnType: .primitive(.decimal), method: .get, dialect: .v4)
                note.qualifiedName = "NS.Cost"
                note.boundType = "edmexampleModel.Person"
                note.returnScale = scale
            }
            _ = app.handle([.key(.char("!")), .key(.enter)])
            guard case .call(let call)? = intents.shown.last?.0 else {
                Issue.record("no call was asked for: \(intents.shown)")
                return
            }
            try app.environment.testCache.writeBlocking {
                try $0.writeCallResult(call.key.canonical, entityKey: nil, value: stored, at: Self.fixedNow)
            }
            app.presentIfNeeded()
            _ = app.handle([.key(.resize)])
            let lines = terminal.lastFrame.map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(lines.contains(shown), "scale \(scale.map(String.init) ?? "none"): \(terminal.lastFrame)")
        }
        #expect(CallResultController.decimal("-12.50") == "-12.50")
        #expect(CallResultController.decimal("1e3") == nil && CallResultController.decimal("1-2") == nil)
        #expect(CallResultController.decimal("\"x\"") == nil && CallResultController.decimal("1.2.3") == nil)
    }

    @Test func bang_on_an_entitys_own_screen_offers_what_acts_on_it() throws {
        let (app, terminal, _) = try operationsApp()
        // (read-only here: its actions are dimmed, and say why)
        _ = app.handle([.key(.char("d"))])
        _ = app.handle([.key(.char("!"))])
        let menu = terminal.lastFrame.joined(separator: "\n")
        #expect(menu.contains("On Ærøskøbing-Łódź, Zoë") && menu.contains("Add a note"), "\(menu)")
        #expect(!menu.contains("Of the service") && !menu.contains("Cars made by"), "\(menu)")
        #expect(menu.contains("action · this browser only reads here"), "\(menu)")
    }

    @Test func an_operation_of_the_service_is_a_command_by_its_name() throws {
        let (app, terminal, intents) = try operationsApp(writes: RecordingWrites())
        // Completed by its name, and invoked: its parameter asked for, then its answer on top
        _ = app.handle([.key(.char(":"))] + "CarsM".map { .key(.char($0)) })
        #expect(app.palette.completions.contains("CarsMadeBy"), "\(app.palette.completions)")
        _ = app.handle([.key(.tab), .key(.enter)])
        #expect(terminal.lastFrame.joined().contains("Cars made by"), "\(terminal.lastFrame)")
        _ = app.handle("Ford".map { .key(.char($0)) } + [.key(.enter)])
        guard case .list(let request)? = intents.shown.last?.0 else {
            Issue.record("no list was asked for")
            return
        }
        #expect(request.key.canonical == "CarsMadeBy?make='Ford'")
        // Esc goes back to where the command was typed
        _ = app.handle([.key(.escape)])
        #expect(terminal.lastFrame[0].hasPrefix("People"), "\(terminal.lastFrame[0])")
        // One bound to a row is not a command (it is the row's, in `!`)
        _ = app.handle([.key(.char(":"))] + "Retire".map { .key(.char($0)) } + [.key(.enter)])
        #expect(
            terminal.lastFrame.last?.contains("Not a command: “Retire”") == true, "\(terminal.lastFrame.last ?? "")")
    }

    /// An action on the service, by its name in the palette and in `!`: its parameter, the question naming the
    /// service, then the outbox under a call of its own (no row's key, no version).
    @Test func an_action_on_the_service_asks_then_is_queued_under_a_call_from_the_palette_and_from_bang() throws {
        let writes = RecordingWrites()
        let (app, terminal, _) = try operationsApp(writes: writes) { note in
            // (the note action, made the service's: a v2 import with POST and no action-for)
            note.boundType = nil
        }
        _ = app.handle([.key(.char(":"))] + "Note".map { .key(.char($0)) } + [.key(.enter)])
        #expect(terminal.lastFrame.joined().contains("Add a note"), "\(terminal.lastFrame)")
        _ = app.handle("Stock taken".map { .key(.char($0)) } + [.key(.enter)])
        let question = terminal.lastFrame.joined()
        #expect(question.contains("Add a note on the service (text Stock taken)? y sends it"), "\(question)")
        _ = app.handle([.key(.char("y"))])
        let invocation = try #require(writes.invoked.first)
        #expect(invocation.key.isCall && invocation.key.callSet == nil && invocation.baseEtag == nil)
        #expect(invocation.operation == "Note")
        #expect(invocation.parameters == [.init(name: "text", value: .string("Stock taken"))])
        // From `!` too, under a call of its own each time
        // (the cursor starts on the first that can be invoked: the row's Retire cannot)
        _ = app.handle([.key(.char("!")), .key(.enter)])
        _ = app.handle("Again".map { .key(.char($0)) } + [.key(.enter), .key(.char("y"))])
        #expect(writes.invoked.count == 2, "\(terminal.lastFrame)")
        #expect(writes.invoked.last.map { $0.key.isCall && $0.key != invocation.key } == true)
    }

    /// What acts on all of a set is offered on the set's own list, titled so, and asks naming all of them; not on a
    /// relation's list of the set (a person's cars), where it would act on rows not shown.
    @Test func an_action_on_all_of_a_set_is_offered_on_its_own_list_only() throws {
        let writes = RecordingWrites()
        let person = try #require(CarDealerModel.model.entityType(ofSet: "Person")).qualifiedName
        let (app, terminal, _) = try operationsApp(writes: writes) { note in
            note.isBoundToCollection = true
            note.dialect = .v4
            note.qualifiedName = "NS.Note"
            note.name = "NS.Note"
            note.boundType = person
        }
        _ = app.handle([.key(.char("!"))])
        let menu = terminal.lastFrame.joined(separator: "\n")
        #expect(menu.contains("On all People") && menu.contains("Add a note"), "\(menu)")
        _ = app.handle([.key(.enter)])
        _ = app.handle("Checked".map { .key(.char($0)) } + [.key(.enter)])
        #expect(terminal.lastFrame.joined().contains("Add a note on all People (text Checked)? y sends it"))
        _ = app.handle([.key(.char("y"))])
        let invocation = try #require(writes.invoked.first)
        #expect(invocation.key.callSet == "Person" && invocation.operation == "NS.Note")
        // On a person's cars (a relation's list of cars), what acts on all cars is not offered
        let car = try #require(CarDealerModel.model.entityType(ofSet: "Car")).qualifiedName
        let (other, screen, _) = try operationsApp(writes: writes) { note in
            note.isBoundToCollection = true
            note.boundType = car
        }
        _ = other.handle([.key(.escape), .key(.char("G")), .key(.enter)])
        #expect(screen.lastFrame[0].contains("People ›"), "\(screen.lastFrame)")
        _ = other.handle([.key(.char("!"))])
        #expect(screen.lastFrame[0].contains("Operations"), "\(screen.lastFrame)")
        #expect(!screen.lastFrame.joined().contains("On all"), "\(screen.lastFrame)")
    }
}
