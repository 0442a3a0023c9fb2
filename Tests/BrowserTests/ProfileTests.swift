import CarDealerTestSupport
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

/// Values shown with what the service relates them to (issue 33): a code with its text, an amount with its
/// currency (decimals as the currency has them), a quantity with its unit.
@Suite struct RelatedValueTests {
    let order: [String: ODataValue] = [
        "status": .string("P"), "statusText": .string("In Process"), "none": .null, "blank": .string(" "),
        "net": .decimal("1234.5"), "yen": .decimal("1234.5"), "dinar": .decimal("-0.0004"), "weight": .decimal("12.5"),
        "EUR": .string("EUR"), "JPY": .string("JPY"), "BHD": .string("BHD"), "unit": .string("KG"),
    ]

    func fill(_ template: String) -> String { ValueFormatter.fill(template) { order[$0] } }

    @Test func a_code_is_shown_with_its_text_as_the_service_arranges_them() {
        #expect(fill("{status:text=statusText}") == "In Process (P)")
        #expect(fill("{status:textlast=statusText}") == "P (In Process)")
        #expect(fill("{status:textonly=statusText}") == "In Process")
        // No text (null, blank, or not there): the code alone
        #expect(fill("{status:text=none}") == "P")
        #expect(fill("{status:text=blank}") == "P")
        #expect(fill("{status:textonly=missing}") == "P")
        #expect(ValueFormatter.fields(of: "{status:text=statusText}") == ["status", "statusText"])
    }

    @Test func an_amount_has_its_currencys_decimals_and_a_quantity_its_unit() {
        #expect(fill("{net:currency=EUR}") == "1,234.50 EUR")
        #expect(fill("{yen:currency=JPY}") == "1,235 JPY")
        #expect(fill("{dinar:currency=BHD}") == "0.000 BHD")
        #expect(fill("{net:currency='USD'}") == "1,234.50 USD")
        #expect(fill("{weight:unit=unit}") == "12.5 KG")
        #expect(fill("{weight:unit='kg'}") == "12.5 kg")
        #expect(ValueFormatter.fields(of: "{net:currency='USD'}") == ["net"])
    }

    /// A decimal with no currency or unit shows the places its `Scale` declares (0 to 3), as Fiori's decimal type
    /// does: mock-sap's v4 amounts (`Scale="3"`) as `7,170.800`, not `7170.8`.
    @Test func a_decimal_alone_shows_the_places_of_its_scale() {
        var property = Property(name: "net", type: .primitive(.decimal))
        property.scale = 3
        let template = ValueFormatter.template(for: property) { _ in true }
        #expect(template == "{net:places3}")
        #expect(ValueFormatter.fill(template) { _ in .decimal("7170.8") } == "7,170.800")
        #expect(ValueFormatter.fill(template) { _ in .decimal("-0.0004") } == "0.000")
        #expect(ValueFormatter.fill(template) { _ in .null } == "")
        property.scale = 0
        #expect(
            ValueFormatter.fill(ValueFormatter.template(for: property) { _ in true }) { _ in .decimal("12.5") } == "13")
        // A larger or variable scale, or another type, shows as sent
        property.scale = 6
        #expect(ValueFormatter.template(for: property) { _ in true } == "{net}")
        property.scale = nil
        #expect(ValueFormatter.template(for: property) { _ in true } == "{net}")
        var count = Property(name: "count", type: .primitive(.int32))
        count.scale = 2
        #expect(ValueFormatter.template(for: count) { _ in true } == "{count}")
        // An amount's currency still decides its places
        property.scale = 3
        property.unit = .currencyCode("EUR")
        #expect(ValueFormatter.template(for: property) { _ in true } == "{net:currency='EUR'}")
    }

    @Test func a_double_amount_is_never_read_in_exponent_form() {
        func amount(_ number: Double) -> String { ValueFormatter.fill("{x:currency='USD'}") { _ in .double(number) } }
        #expect(amount(0.00005) == "0.00 USD")
        #expect(amount(-1234.567) == "-1,234.57 USD")
        #expect(amount(1e15) == ValueFormatter.format(.double(1e15)))  // too large to hold exactly: as it is
        #expect(amount(.nan) == "nan")
    }

    @Test func a_code_from_a_hostile_document_never_becomes_part_of_a_template() {
        var property = Property(name: "net", type: .primitive(.decimal))
        property.unit = .currencyCode("}{statusText")
        #expect(ValueFormatter.template(for: property) { _ in true } == "{net}")
        property.unit = .currency(path: "EUR")
        #expect(ValueFormatter.template(for: property) { _ in false } == "{net}")  // no such property
        #expect(ValueFormatter.template(for: property) { _ in true } == "{net:currency=EUR}")
    }
}

/// A profile overrides the service's description where it speaks, and only there (issue 33).
@Suite struct ProfileOverAnnotationsTests {
    @Test func what_a_profile_leaves_unsaid_comes_from_the_service() throws {
        let model = CarDealerModel.model
        let completed = DisplayProfile(
            root: nil,
            sets: [
                "Person": DisplayProfile.SetProfile(
                    title: nil, row: "{lastName}", orderBy: nil, search: nil, columns: nil, drill: nil),
                "Car": DisplayProfile.SetProfile(
                    title: "Vehicles", row: nil, orderBy: ["carID desc"], search: nil, columns: nil, drill: nil),
            ]
        ).completed(for: model)
        #expect(completed.sets["Person"]?.title == "People")  // UI.HeaderInfo
        #expect(completed.sets["Person"]?.orderBy == ["lastName", "firstName", "personID"])  // UI.PresentationVariant
        #expect(completed.sets["Person"]?.row == "{lastName}")  // the profile's
        #expect(completed.sets["Car"]?.title == "Vehicles")
        #expect(completed.sets["Car"]?.orderBy == ["carID desc"])
        #expect(completed.sets["Car"]?.row == "{make} · {model}")  // UI.HeaderInfo's title and description
        #expect(completed.sets["Maintenance"]?.orderBy == ["serviceDate desc", "maintenanceID"])
    }
}
