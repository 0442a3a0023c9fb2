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
        DeepLink.resolve(text, model: CarDealerModel.model, profile: DisplayProfile.carDealer!)
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

/// `--open` on a service that takes keys as segments (issue 37): `People/russell` names the entity as `People('russell')`
/// does, and the path goes on from it; a navigation's name is never read as a key.
@Suite struct KeySegmentDeepLinkTests {
    static let model: ServiceModel = {
        let document = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
            <edmx:DataServices><Schema Namespace="W" xmlns="http://docs.oasis-open.org/odata/ns/edm">
            <EntityType Name="Person"><Key><PropertyRef Name="userName"/></Key>
              <Property Name="userName" Type="Edm.String" Nullable="false"/>
              <NavigationProperty Name="Friends" Type="Collection(W.Person)"/></EntityType>
            <EntityType Name="Car"><Key><PropertyRef Name="carID"/></Key>
              <Property Name="carID" Type="Edm.Int32" Nullable="false"/></EntityType>
            <EntityContainer Name="C"><EntitySet Name="People" EntityType="W.Person">
              <NavigationPropertyBinding Path="Friends" Target="People"/></EntitySet>
              <EntitySet Name="Cars" EntityType="W.Car"/>
              <Annotation Term="Org.OData.Capabilities.V1.KeyAsSegmentSupported"/></EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        do { return try EDMXParser.parse(Array(document.utf8)) } catch { fatalError("\(error)") }
    }()

    func resolve(_ text: String) -> Result<DeepLink, DeepLinkError> {
        DeepLink.resolve(text, model: Self.model, profile: DisplayProfile(root: nil, sets: [:]))
    }

    @Test func a_key_as_a_segment_names_the_entity_and_the_path_goes_on_from_it() throws {
        let russell = EntityKey(entitySet: "People", value: .string("russell"))
        #expect(try resolve("People/russell").get().steps == [.list(set: "People"), .detail(russell)])
        #expect(try resolve("People('russell')").get().steps == [.list(set: "People"), .detail(russell)])
        #expect(
            try resolve("People/russell/Friends").get().steps == [
                .list(set: "People"), .related(parent: russell, path: ["Friends"], title: "Friends"),
            ])
        // (a number where the key is one, percent-encoding undone)
        #expect(
            try resolve("Cars/3").get().steps == [
                .list(set: "Cars"), .detail(EntityKey(entitySet: "Cars", value: .int(3))),
            ])
        #expect(
            try resolve("People/ann%20lee").get().steps == [
                .list(set: "People"), .detail(EntityKey(entitySet: "People", value: .string("ann lee"))),
            ])
        // A navigation after a set without a key is still the mistake it was; a key that is no number, a sentence
        #expect("\(try #require(resolve("People/Friends").failure))".contains("without a key"))
        #expect(throws: DeepLinkError.self) { try resolve("Cars/three").get() }
    }
}
