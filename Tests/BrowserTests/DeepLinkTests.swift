import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import Terminal
import Testing

@testable import Browser

/// `--open PATH` (issue 15): the screens a path names, with the stack behind them.
@MainActor
extension ScreenSnapshotTests {
    func resolve(_ text: String) throws -> Result<DeepLink, DeepLinkError> {
        DeepLink.resolve(text, model: try CarDealerModel.model, profile: DisplayProfile.carDealer!)
    }

    @Test func paths_name_the_screens_a_user_would_drill_to() throws {
        let bob = EntityKey(entitySet: "Person", value: .int(7))
        // A person's cars, through the link entities as Enter shows them, whether the path spells the hop or not
        let cars = DeepLink.Step.related(parent: bob, path: ["PersonCar", "Car"], title: "Cars")
        #expect(try resolve("Person(7)/PersonCar").get().steps == [cars])
        #expect(try resolve("Person(7)/PersonCar/Car").get().steps == [cars])
        // An entity alone: its details; another set: its list over the root
        #expect(try resolve("Person(7)").get().steps == [.detail(bob)])
        #expect(try resolve("Car").get().steps == [.list(set: "Car")])
        #expect(
            try resolve("Car(2)/PersonCar").get().steps == [
                .list(set: "Car"),
                .related(
                    parent: EntityKey(entitySet: "Car", value: .int(2)), path: ["PersonCar", "Person"],
                    title: "Owners"),
            ])
        // Mistakes, in words
        #expect(throws: DeepLinkError.self) { try resolve("Person/PersonCar").get() }
        #expect("\(try #require(try resolve("Person/PersonCar").failure))".contains("without a key"))
        #expect("\(try #require(try resolve("Nope").failure))".contains("no entity set 'Nope'"))
        #expect("\(try #require(try resolve("Person(1)/Wheels").failure))".contains("no navigation 'Wheels'"))
    }

    @Test func an_opened_link_has_the_stack_behind_it() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 80, rows: 12))
        app.open(try resolve("Person(1)/PersonCar").get())
        app.presentIfNeeded()
        #expect(terminal.lastFrame[0].hasPrefix("People › Samson, Bob"), "\(terminal.lastFrame[0])")
        #expect(terminal.lastFrame.joined().contains("Explorer"))
        _ = app.handle([.key(.escape)])
        #expect(terminal.lastFrame[0].hasPrefix("People "), "\(terminal.lastFrame[0])")
    }
}

@MainActor
extension ScreenSnapshotTests {
    @Test func a_crumb_names_its_entity_once_it_is_cached_and_follows_a_rename() throws {
        let (app, terminal, cache) = try seededApp(size: TerminalSize(columns: 80, rows: 12))
        // A deep link to a person the cache has not seen: the key stands in for the name
        app.open(try resolve("Person(42)/PersonCar").get())
        app.presentIfNeeded()
        #expect(terminal.lastFrame[0].hasPrefix("People › Person(42)"), "\(terminal.lastFrame[0])")
        // Once the person arrives, the crumb is their name
        try seedPeople(cache, people: [(42, "Ada", "Lovelace", [])])
        _ = app.handle([.key(.resize)])
        #expect(terminal.lastFrame[0].hasPrefix("People › Lovelace, Ada"), "\(terminal.lastFrame[0])")
        // And a rename shows there too
        try seedPeople(cache, people: [(42, "Ada", "King", [])])
        _ = app.handle([.key(.resize)])
        #expect(terminal.lastFrame[0].hasPrefix("People › King, Ada"), "\(terminal.lastFrame[0])")
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
