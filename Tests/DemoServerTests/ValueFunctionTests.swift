import DemoServer
import Foundation
import ODataCore
import Testing

/// The built-in service's function of one car that answers a value (issue 36): its maintenance cost in a year,
/// declared in both dialects as the client's model reads them, answered as SAP (v2) and OData v4 answer a decimal,
/// the sum of that car's records in the year as the data holds them, and refused in a sentence when called wrong.
@Suite struct ValueFunctionTests {
    @Test func declared_for_a_car_in_both_dialects_as_a_function_answering_one_value() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        for (path, dialect) in [("$metadata", ODataDialect.v2), (service.server.version4URL + "$metadata", .v4)] {
            let model = try EDMXParser.parse(Array(try await service.get(path).body))
            let cost = try #require(model.operations.first { $0.displayName == "Maintenance cost" }, "\(dialect)")
            #expect(cost.answersOne && cost.isBound && cost.boundType == "edmexampleModel.Car", "\(dialect)")
            #expect(cost.inputs(keyNames: ["carID"]).map(\.name) == ["year"], "\(dialect)")
            #expect(cost.returnType == .primitive(.decimal), "\(dialect)")
        }
    }

    /// The sum the answer should be, read from the data as the client would read it: a person's cars, their records.
    func expected(_ service: LiveService, car: Int, year: Int) async throws -> Decimal {
        let links = try await service.collection("Car(\(car))/PersonCar?$expand=PersonCarMaintenance/Maintenance")
        var sum = Decimal(0)
        for link in links.entities {
            guard case .collection(let records)? = link.navigation("PersonCarMaintenance") else { continue }
            for record in records.entities {
                guard case .entity(let maintenance)? = record.navigation("Maintenance"),
                    case .dateTime(let date)? = maintenance["serviceDate"],
                    let cost = maintenance["cost"].flatMap({ value -> String? in
                        switch value {
                        case .decimal(let text), .string(let text): text  // (read without the model: untyped)
                        default: nil
                        }
                    })
                else { continue }
                let when = Date(timeIntervalSince1970: Double(date.millisecondsSince1970) / 1000)
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = TimeZone(identifier: "UTC")!
                if calendar.component(.year, from: when) == year { sum += Decimal(string: cost) ?? 0 }
            }
        }
        return sum
    }

    @Test func the_answer_is_the_sum_of_the_cars_records_that_year_in_both_dialects() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        var seenNonZero = false
        for (car, year) in [(1, 2006), (1, 2015), (1, 2020), (2, 2010), (3, 1999)] {
            let want = try await expected(service, car: car, year: year)
            seenNonZero = seenNonZero || want != 0
            let v2 = try await service.get("MaintenanceCost?carID=\(car)&year=\(year)")
            let v2Body = try #require(try JSONSerialization.jsonObject(with: v2.body) as? [String: Any])
            let v2Text = try #require((v2Body["d"] as? [String: Any])?["MaintenanceCost"] as? String)
            #expect(Decimal(string: v2Text) == want, "v2 car \(car) in \(year): \(v2Text) against \(want)")
            let v4 = try await service.get(
                service.server.version4URL + "Car(\(car))/edmexampleModel.MaintenanceCost(year=@y)?@y=\(year)")
            let v4Text = String(decoding: v4.body, as: UTF8.self)
            let number = v4Text.split(separator: ":").last.map { String($0.dropLast()) } ?? ""
            #expect(Decimal(string: number) == want, "v4 car \(car) in \(year): \(v4Text) against \(want)")
        }
        #expect(seenNonZero)
    }

    @Test func a_call_without_its_year_of_no_car_or_not_with_get_is_a_sentence() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        for (path, status) in [
            ("MaintenanceCost?carID=1", 400), ("MaintenanceCost?carID=1&year=abc", 400),
            ("MaintenanceCost?carID=1&year=2000&year=2001", 400), ("MaintenanceCost?carID=999999&year=2000", 404),
            (service.server.version4URL + "Car(1)/edmexampleModel.MaintenanceCost(month=3)", 400),
            (service.server.version4URL + "Car(1)/edmexampleModel.MaintenanceCost(year=@y)", 400),
        ] {
            let response = try await service.get(path)
            #expect(response.status == status, "\(path): \(String(decoding: response.body, as: UTF8.self))")
        }
        let posted = try await service.get("MaintenanceCost?carID=1&year=2000", method: "POST")
        #expect((400..<500).contains(posted.status), "\(posted.status)")
    }
}
