import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import Sync

/// A write answered with values other than those typed is said once, naming the field and both values (issue 32,
/// item 4: one server stored every `/Date(ms)/` as 1970-01-01 and answered 201).
@Suite struct ChangedByServiceTests {
    static let may2024 = ODataValue.dateTime(ODataInstant(millisecondsSince1970: 1_714_521_600_000))

    @Test(arguments: [
        // typed, answered, the same?
        (ODataValue.decimal("1.5"), ODataValue.decimal("1.50"), true),
        (.int(5), .decimal("5.0"), true),
        (.int(5), .double(5), true),
        (.string("Ford"), .string("Ford "), false),
        (may2024, .dateTimeOffset(ODataInstant(millisecondsSince1970: 1_714_521_600_000, offsetMinutes: 120)), true),
        (may2024, .dateTime(ODataInstant(millisecondsSince1970: 0)), false),
        (.guid("ABC"), .guid("abc"), true),
        (.bool(true), .bool(false), false),
    ])
    func values_are_compared_as_values_not_as_written(typed: ODataValue, answered: ODataValue, same: Bool) {
        #expect(typed.isSameValue(as: answered) == same)
    }

    @Test func only_typed_fields_the_answer_holds_otherwise_are_differences() {
        let typed: [ODataProperty] = [
            .init(name: "make", value: .string("Ford")), .init(name: "manufactureDate", value: Self.may2024),
            .init(name: "cost", value: .decimal("1.5")), .init(name: "note", value: .string("left out")),
        ]
        let answer: [ODataProperty] = [
            .init(name: "carID", value: .int(10)), .init(name: "make", value: .string("Ford")),
            .init(name: "manufactureDate", value: .dateTime(ODataInstant(millisecondsSince1970: 0))),
            .init(name: "cost", value: .decimal("1.50")),
        ]
        let differences = ChangedByService.differences(typed: typed, answer: answer)
        #expect(differences.map(\.name) == ["manufactureDate"])
        let sentence = ChangedByService.sentence(differences, of: "Car(10)") ?? ""
        #expect(sentence.hasPrefix("Car(10): the service stored manufactureDate as “1970-01-01"), "\(sentence)")
        #expect(sentence.contains("where “2024-05-01"), "\(sentence)")
    }

    @Test func a_create_answered_with_another_date_is_said_on_the_status_line() async throws {
        let root = SyncEngineTests.root
        // Given a service that answers a new car with its date turned into 1970-01-01
        let transport = FakeTransport { request, _ in
            json(
                #"{"d":{"__metadata":{"uri":"\#(root)Car(10)"},"carID":10,"make":"Lada","manufactureDate":"\/Date(0)\/"}}"#,
                status: 201)
        }
        let engine = SyncEngine(
            configuration: SyncEngine.Configuration(serviceRoot: root), cache: try CacheDatabase(),
            transport: transport, model: CarDealerModel.model)
        // When a car is made with a date typed in May 2024
        engine.create(
            EntityCreation(
                entitySet: "Car",
                properties: [
                    .init(name: "make", value: .string("Lada")), .init(name: "manufactureDate", value: Self.may2024),
                ],
                addedTo: .list(ListRequest(entitySet: "Car"))))
        // Then the status line says the service stored another date, naming both
        #expect(
            try await eventually {
                let error = try engine.cache.syncStatus().lastError ?? ""
                return error.contains("Car(10): the service stored manufactureDate as “1970-01-01")
                    && error.contains("2024-05-01")
            })
        // And the cache holds what the service stored (its word is the truth)
        #expect(
            try engine.cache.entity("Car(10)")?["manufactureDate"] == .dateTime(ODataInstant(millisecondsSince1970: 0)))
    }
}
