import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// `x` in a list reached through a link entity removes the link, never the entity behind it (issue 32: a clerk
/// taking a car out of one person's cars deleted the car for every owner, with its history).
@MainActor
@Suite struct UnlinkTests {
    func frame(_ terminal: HeadlessTerminal) -> String { terminal.lastFrame.joined(separator: "\n") }

    /// Samson, Bob's cars (the third person): Ford Explorer through `PersonCar(1)`, Ford Mustang through
    /// `PersonCar(2)`; the Explorer is known to have a second owner.
    func samsonsCars() throws -> (BrowserApp, HeadlessTerminal, RecordingWrites) {
        let writes = RecordingWrites()
        let (app, terminal, cache) = try ScreenSnapshotTests().seededApp(
            size: TerminalSize(columns: 140, rows: 14), writes: writes)
        try cache.writeBlocking {
            try $0.upsertEntity(
                key: "PersonCar(9)", entitySet: "PersonCar", type: nil,
                properties: [ODataProperty(name: "personCarID", value: .int(9))], etag: nil,
                at: ScreenSnapshotTests.fixedNow, partial: false)
            try $0.replaceRelation(
                parent: "Car(2)", navigation: "PersonCar", children: ["PersonCar(1)", "PersonCar(9)"],
                at: ScreenSnapshotTests.fixedNow)
        }
        _ = app.handle([.key(.char("j")), .key(.char("j")), .key(.enter)])
        #expect(frame(terminal).contains("Explorer"), "\(frame(terminal))")
        return (app, terminal, writes)
    }

    @Test func x_on_a_car_in_a_persons_cars_asks_to_remove_the_link_and_hands_on_the_link_only() throws {
        let (app, terminal, writes) = try samsonsCars()
        // When x is pressed on the Ford Explorer
        _ = app.handle([.key(.char("x"))])
        // Then the question says the person no longer has it, and that the car stays
        let asked = frame(terminal)
        #expect(asked.contains("“Samson, Bob” no longer has “Ford Explorer”"), "\(asked)")
        #expect(asked.contains("the Car and its history stay") && asked.contains("y removes the link"), "\(asked)")
        #expect(!asked.contains("Delete “"))

        // When y is pressed
        _ = app.handle([.key(.char("y"))])
        // Then what is handed on deletes the ownership, from the person's cars, and not the car
        let deletion = try #require(writes.deleted.first)
        #expect(deletion.key == "PersonCar(1)" && deletion.link == "PersonCar(1)")
        #expect(deletion.shownIn == .related(parent: "Person(1)", path: ["PersonCar", "Car"]))
        #expect(!writes.deleted.contains { $0.key.entitySet == "Car" })
    }

    @Test func at_80_columns_the_question_still_shows_the_key_that_answers_it() throws {
        let (app, terminal, _) = try ScreenSnapshotTests().seededApp(
            size: TerminalSize(columns: 80, rows: 14), writes: RecordingWrites())
        _ = app.handle([.key(.char("j")), .key(.char("j")), .key(.enter), .key(.char("x"))])
        #expect(frame(terminal).contains("y removes the link: “Samson, Bob” no longer has"), "\(frame(terminal))")
    }

    @Test func delete_entity_deletes_the_car_itself_after_a_question_naming_what_goes_with_it() throws {
        let (app, terminal, writes) = try samsonsCars()
        // When :delete-entity is run on the Ford Explorer
        _ = app.handle([.key(.char(":"))] + "delete-entity".map { .key(.char($0)) } + [.key(.enter)])
        // Then the question names the car, says it goes for every owner, and names its two ownerships
        let asked = frame(terminal)
        #expect(asked.contains("Delete “Ford Explorer” itself, for every Person it belongs to"), "\(asked)")
        #expect(asked.contains("with its 2 PersonCar") && asked.contains("y deletes it"), "\(asked)")
        // When any other key is pressed, nothing goes; asked again and y pressed, the car itself does
        _ = app.handle([.key(.char("n"))])
        #expect(writes.deleted.isEmpty)
        _ = app.handle([.key(.char(":"))] + "delete-entity".map { .key(.char($0)) } + [.key(.enter), .key(.char("y"))])
        let deletion = try #require(writes.deleted.first)
        #expect(deletion.key == "Car(2)" && deletion.link == "PersonCar(1)")
    }

    @Test func a_set_the_service_does_not_let_be_deleted_is_said_and_nothing_is_asked() throws {
        // Given a model whose link set is marked sap:deletable="false"
        let model = CarDealerModel.model(changing: "PersonCar") { $0.isDeletable = false }
        let writes = RecordingWrites()
        let (_, _, cache) = try ScreenSnapshotTests().seededApp(writes: writes)
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), writes: writes, model: model,
            profile: DisplayProfile.carDealer!, now: { ScreenSnapshotTests.fixedNow },
            timeZone: TimeZone(identifier: "UTC")!)
        let (app, terminal) = BrowserApp.presented(environment, size: TerminalSize(columns: 140, rows: 14))
        _ = app.handle([.key(.char("j")), .key(.char("j")), .key(.enter)])
        // When x is pressed on a car
        _ = app.handle([.key(.char("x"))])
        // Then it says why not, asks nothing, and hands nothing on
        let shown = frame(terminal)
        #expect(shown.contains("The service does not let PersonCar be deleted"), "\(shown)")
        #expect(!shown.contains("y removes the link"))
        _ = app.handle([.key(.char("y"))])
        #expect(writes.deleted.isEmpty)
    }
}
