import Foundation
import ODataCore
import Testing

@testable import Browser

@Suite struct ProfileTests {
    /// The shipped CarDealer profile, as compiled into the binary from `Sources/Browser/Profile/cardealer.profile.json`.
    static func shippedProfile() throws -> DisplayProfile {
        try DisplayProfile.load(from: Data(DisplayProfile.carDealerJSON.utf8))
    }

    @Test func the_shipped_cardealer_profile_reads() throws {
        let profile = try Self.shippedProfile()
        #expect(profile.root == "Person")
        #expect(profile.sets["Person"]?.drill?.path == ["PersonCar", "Car"])
        #expect(profile.sets["PersonCar"]?.drill?.path == ["PersonCarMaintenance", "Maintenance"])
        #expect(profile.sets["Maintenance"]?.columns?.count == 4)
    }

    @Test func row_templates_fill_from_properties() {
        let values: [String: ODataValue] = [
            "lastName": .string("Samson"), "firstName": .string("Bob"),
            "manufactureDate": .dateTime(ODataInstant(millisecondsSince1970: 1_099_242_508_440)),
        ]
        #expect(ValueFormatter.fill("{lastName}, {firstName}") { values[$0] } == "Samson, Bob")
        #expect(ValueFormatter.fill("{manufactureDate:year}") { values[$0] } == "2004")
        #expect(ValueFormatter.fill("{manufactureDate:date}") { values[$0] } == "2004-10-31")
        #expect(ValueFormatter.fill("{missing} {lastName") { values[$0] } == "{lastName")
        #expect(
            ValueFormatter.fields(of: "{make} {model} {manufactureDate:year} {make}") == [
                "make", "model", "manufactureDate",
            ])
    }

    @Test func money_and_grouping_round_half_away_from_zero() {
        #expect(ValueFormatter.format(.decimal("1234.5"), as: "money") == "1,234.50")
        #expect(ValueFormatter.format(.decimal("99.995"), as: "money") == "100.00")
        #expect(ValueFormatter.format(.decimal("-0.004"), as: "money") == "0.00")
        #expect(ValueFormatter.format(.decimal("999999.999"), as: "money") == "1,000,000.00")
        #expect(ValueFormatter.format(.int(1234567), as: "grouped") == "1,234,567")
        #expect(ValueFormatter.format(.int(-1234), as: "grouped") == "-1,234")
        #expect(ValueFormatter.format(.double(2.0)) == "2")
        #expect(ValueFormatter.format(.time(ODataDuration(milliseconds: 9_584_000))) == "02:39:44")
        #expect(
            ValueFormatter.format(.dateTime(ODataInstant(millisecondsSince1970: 1_257_008_908_440)))
                == "2009-10-31 17:08")
        #expect(ValueFormatter.format(.dateTime(ODataInstant(millisecondsSince1970: 86_400_000))) == "1970-01-02")
    }
}
