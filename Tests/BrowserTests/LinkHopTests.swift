import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// Link entities a browser hops through without a profile (issue 33): a navigation to rows that hold only keys,
/// stamps and two to-one navigations leads on to what they link.
@Suite struct LinkHopTests {
    @Test func the_car_dealers_link_entities_lead_on_to_what_they_link() throws {
        let model = CarDealerModel.model
        #expect(model.linkHop("PersonCar", fromSet: "Person") == ["PersonCar", "Car"])
        #expect(model.linkHop("PersonCar", fromSet: "Car") == ["PersonCar", "Person"])
        #expect(model.linkHop("PersonCarMaintenance", fromSet: "PersonCar") == ["PersonCarMaintenance", "Maintenance"])
        // A to-one navigation, or one from the link entity itself, is no hop
        #expect(model.linkHop("Car", fromSet: "PersonCar") == nil)
        #expect(model.linkHop("Person", fromSet: "PersonCar") == nil)
    }

    @Test func rows_holding_data_of_their_own_are_no_link_entities() throws {
        // Given PersonCar with a property a client sets (a purchase price)
        let edmx = CarDealerModel.edmx.replacingOccurrences(
            of: #"<Property Name="personCarID" Type="Edm.Int32" Nullable="false"/>"#,
            with:
                #"<Property Name="personCarID" Type="Edm.Int32" Nullable="false"/><Property Name="price" Type="Edm.Decimal" Nullable="true"/>"#
        )
        #expect(edmx != CarDealerModel.edmx)
        #expect(try EDMXParser.parse(edmx).linkHop("PersonCar", fromSet: "Person") == nil)
    }
}

/// Without a profile, a detail offers what a link entity links before the link entities themselves.
@MainActor
@Suite struct LinkHopScreenTests {
    @Test func a_persons_detail_offers_their_cars_through_the_link_entities_and_enter_opens_them() throws {
        let cache = try temporaryCache()
        try seedPeople(cache, people: [(1, "Ann", "Smith", [(1, 2, "Ford", "Explorer")])])
        let model = CarDealerModel.plainModel
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), model: model, profile: DisplayProfile.defaults(for: model))
        let detail = EntityDetailController(
            environment: environment, key: EntityKey(entitySet: "Person", value: .int(1)), breadcrumb: "Ann")
        let (app, _) = BrowserApp.presented(environment, size: TerminalSize(columns: 80, rows: 16), root: detail)
        let labels = detail.lines.map(\.label)
        let cars = try #require(labels.firstIndex(of: "Car"))
        #expect(labels[cars + 1] == "PersonCar")  // the link entities themselves, right after
        _ = app.handle(Array(repeating: .key(.down), count: cars - detail.cursor.selected) + [.key(.enter)])
        let list = try #require(app.stack.top as? EntityListController)
        #expect(
            list.source == .related(parent: EntityKey(entitySet: "Person", value: .int(1)), path: ["PersonCar", "Car"]))
    }
}
