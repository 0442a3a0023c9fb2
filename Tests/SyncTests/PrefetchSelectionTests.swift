import CarDealerTestSupport
import ODataCore
import Testing

@testable import Sync

/// `$select` of a prefetch: what the next screens show, keys always, link entities cut to their label, the rest
/// whole; spelled for each dialect.
@Suite struct PrefetchSelectionTests {
    static let hints = PrefetchHints(
        drillPaths: [["PersonCar", "Car"]],
        shown: [
            "Person": ["lastName", "firstName", "createDate", "nickname"],  // nickname: not in $metadata
            "Car": ["make", "model"],
            "Maintenance": ["serviceDate", "description", "cost"],
        ],
        labels: ["PersonCar": ["personCarID"], "PersonCarMaintenance": ["personCarMaintenanceID"]])

    @Test func a_page_comes_whole_and_its_next_screen_cut_to_what_that_screen_shows() throws {
        let policy = PrefetchPolicy(model: CarDealerModel.model, profile: Self.hints)
        let selection = policy.selection(forSet: "Person", expand: ["PersonCar/Car"], wholeRoot: true)
        // The page's own people whole, by name (SAP Gateway refuses `*` beside paths); the links their key, the
        // cars their key and shown fields
        #expect(
            selection.paths == [
                "personID", "firstName", "lastName", "ssn", "createDate", "PersonCar/personCarID",
                "PersonCar/Car/carID",
                "PersonCar/Car/make", "PersonCar/Car/model",
            ])
        #expect(Set(selection.partialSets.keys) == ["PersonCar", "Car"])
        #expect(selection.partialSets["Car"] == ["carID", "make", "model", "manufactureDate", "createStamp"])
    }

    @Test func a_resting_row_is_cut_too_and_unknown_names_never_reach_the_service() throws {
        let policy = PrefetchPolicy(model: CarDealerModel.model, profile: Self.hints)
        let selection = policy.selection(
            forSet: "Person", expand: ["PersonCar/PersonCarMaintenance/Maintenance"], wholeRoot: false)
        #expect(
            selection.paths == [
                "personID", "lastName", "firstName", "createDate", "PersonCar/personCarID",
                "PersonCar/PersonCarMaintenance/personCarMaintenanceID",
                "PersonCar/PersonCarMaintenance/Maintenance/maintenanceID",
                "PersonCar/PersonCarMaintenance/Maintenance/serviceDate",
                "PersonCar/PersonCarMaintenance/Maintenance/description",
                "PersonCar/PersonCarMaintenance/Maintenance/cost",
            ])
        #expect(Set(selection.partialSets.keys) == ["Person", "PersonCar", "PersonCarMaintenance", "Maintenance"])
    }

    @Test func without_hints_nothing_is_cut_and_no_select_is_sent() throws {
        let policy = PrefetchPolicy(model: CarDealerModel.model)
        #expect(policy.selection(forSet: "Person", expand: ["PersonCar/Car"], wholeRoot: false) == .init())
        // A set that comes whole as the page's own rows is not cut below it either (Car → owners → their cars)
        let mixed = PrefetchPolicy(model: CarDealerModel.model, profile: PrefetchHints(shown: ["Car": ["make"]]))
        #expect(
            mixed.selection(forSet: "Person", expand: ["PersonCar/Car"], wholeRoot: true).partialSets.keys.sorted() == [
                "Car"
            ])
        let selection = mixed.selection(forSet: "Car", expand: ["PersonCar/Person/PersonCar/Car"], wholeRoot: true)
        #expect(selection == .init())
    }

    @Test func v4_selects_inside_each_expansion_and_v2_by_paths() {
        let options = QueryOptions(
            expand: ["PersonCar/Car", "PersonCar/PersonCarMaintenance/Maintenance"],
            select: [
                "personID", "lastName", "PersonCar/personCarID", "PersonCar/Car/carID", "PersonCar/Car/make",
                "PersonCar/PersonCarMaintenance/Maintenance/cost",
            ])
        #expect(
            options.queryText(for: .v4)
                == "$expand=PersonCar($select=personCarID;$expand=Car($select=carID,make),"
                + "PersonCarMaintenance($expand=Maintenance($select=cost)))&$select=personID,lastName")
        #expect(
            options.queryText(for: .v2)
                == "$expand=PersonCar/Car,PersonCar/PersonCarMaintenance/Maintenance&$select=personID,lastName,"
                + "PersonCar/personCarID,PersonCar/Car/carID,PersonCar/Car/make,"
                + "PersonCar/PersonCarMaintenance/Maintenance/cost")
        // A v4 service that refuses options inside $expand gets the first level, whole
        let flat = ODataURLBuilder(serviceRoot: "http://host/svc/", dialect: .v4, nestsExpand: false)
        #expect(
            flat.url(ResourcePath(entitySet: "Person"), options)
                == "http://host/svc/Person?$expand=PersonCar&$select=personID,lastName")
    }
}
