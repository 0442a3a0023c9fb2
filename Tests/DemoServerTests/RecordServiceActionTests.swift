import DemoServer
import Foundation
import ODataCore
import Testing

/// The built-in service's action on a car (issue 36): records a standard service under the car's latest owner, in
/// both dialects and inside a `$batch`, once per request id, against the car's version; its side effects declared
/// as the client's model reads them. Outcomes are read back with plain requests.
@Suite struct RecordServiceActionTests {
    /// The maintenance records of a car's latest ownership: their ids, descriptions and mileages.
    static func int(_ value: ODataValue?) -> Int64? {
        if case .int(let number)? = value { return number }
        return nil
    }

    func records(_ service: LiveService, car: Int) async throws -> [(id: Int64, description: String, mileage: Int64)] {
        let links = try await service.collection("Car(\(car))/PersonCar?$expand=PersonCarMaintenance/Maintenance")
        let latest = links.entities.max { (Self.int($0["personCarID"]) ?? 0) < (Self.int($1["personCarID"]) ?? 0) }
        guard case .collection(let linked)? = latest?.navigation("PersonCarMaintenance") else { return [] }
        return linked.entities.compactMap { link in
            guard case .entity(let record)? = link.navigation("Maintenance"),
                let id = Self.int(record["maintenanceID"]), case .string(let text)? = record["description"],
                let mileage = Self.int(record["mileage"])
            else { return nil }
            return (id, text, mileage)
        }
    }

    func etag(_ service: LiveService, car: Int) async throws -> String {
        try #require(try await service.get("Car(\(car))").headers["etag"])
    }

    @Test func declared_in_both_dialects_as_an_action_on_a_car_whose_effects_reach_its_maintenance() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        for (path, dialect) in [("$metadata", ODataDialect.v2), (service.server.version4URL + "$metadata", .v4)] {
            let model = try EDMXParser.parse(Array(try await service.get(path).body))
            let action = try #require(model.operations.first { $0.displayName == "Record a standard service" })
            #expect(action.kind == .action && action.boundType == "edmexampleModel.Car", "\(dialect)")
            #expect(action.inputs(keyNames: ["carID"]).map(\.name) == ["mileage"], "\(dialect)")
            #expect(action.sideEffects?.navigationPaths == [["PersonCar", "PersonCarMaintenance"]], "\(dialect)")
        }
        // The annotation document SAP clients read carries the v2 import's side effects too.
        let document = String(decoding: try await service.get("annotations").body, as: UTF8.self)
        #expect(document.contains("/RecordService\"") && document.contains("_it/PersonCar/PersonCarMaintenance"))
    }

    @Test func each_dialect_records_one_service_under_the_latest_owner_and_a_request_id_again_makes_none()
        async throws
    {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let before = try await records(service, car: 1)
        let v2 = try await service.get(
            "RecordService?carID=1&mileage=52000", headers: ["Repeatability-Request-ID": "v2-once"], method: "POST")
        #expect(v2.status == 200, "\(String(decoding: v2.body, as: UTF8.self))")
        #expect(v2.headers["repeatability-result"] == "accepted")
        let again = try await service.get(
            "RecordService?carID=1&mileage=52000", headers: ["Repeatability-Request-ID": "v2-once"], method: "POST")
        #expect(again.status == 200 && again.body == v2.body)
        let v4 = try await service.get(
            service.server.version4URL + "Car(1)/edmexampleModel.RecordService",
            headers: ["If-Match": try await etag(service, car: 1), "Repeatability-Request-ID": "v4-once"],
            method: "POST", body: #"{"mileage": 53000}"#)
        #expect(v4.status == 200, "\(String(decoding: v4.body, as: UTF8.self))")
        #expect(String(decoding: v4.body, as: UTF8.self).contains(#""description":"Standard service""#))
        let after = try await records(service, car: 1)
        let made = after.filter { record in !before.contains { $0.id == record.id } }
        #expect(made.map(\.description) == ["Standard service", "Standard service"])
        #expect(Set(made.map(\.mileage)) == [52000, 53000])
    }

    @Test func in_a_batch_changeset_it_runs_with_its_query_and_a_stale_version_changes_nothing() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let before = try await records(service, car: 2)
        let body = DemoBatchTests.multipart([[("1", "POST RecordService?carID=2&mileage=777", nil)]])
        let response = try await service.get(
            "$batch", headers: ["Content-Type": "multipart/mixed; boundary=b"], method: "POST", body: body)
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(response.status == 202 && text.contains("HTTP/1.1 200 OK"), "\(text)")
        #expect(try await records(service, car: 2).count == before.count + 1)
        let stale = try await service.get(
            service.server.version4URL + "Car(2)/edmexampleModel.RecordService", headers: ["If-Match": "W/\"old\""],
            method: "POST", body: #"{"mileage": 1}"#)
        #expect(stale.status == 412)
        #expect(try await records(service, car: 2).count == before.count + 1)
    }

    @Test func a_call_without_its_mileage_of_no_car_or_of_a_car_without_owner_is_a_sentence() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        // A car no one owns, made here.
        let made = try await service.get(
            "Car", method: "POST", body: #"{"make":"Lone","model":"Car","manufactureDate":"\/Date(0)\/"}"#)
        let lone = try #require(
            String(decoding: made.body, as: UTF8.self).firstMatch(of: /"carID":(\d+)/).map { String($0.1) })
        for (path, body, status) in [
            ("RecordService?carID=1", nil, 400), ("RecordService?carID=1&mileage=-5", nil, 400),
            ("RecordService?carID=1&mileage=1&mileage=2", nil, 400), ("RecordService?carID=999999&mileage=1", nil, 404),
            ("RecordService?carID=\(lone)&mileage=1", nil, 409),
            (service.server.version4URL + "Car(1)/edmexampleModel.RecordService", #"{"km": 1}"#, 400),
            (service.server.version4URL + "Car(1)/edmexampleModel.RecordService", "not json", 400),
            (service.server.version4URL + "Car(1)/edmexampleModel.RecordService", "{}", 400),
            ("RecordService?carID=1&mileage=1&note=x", nil, 400),
            (service.server.version4URL + "Car(1)/PersonCar(3)/edmexampleModel.RecordService", #"{"mileage": 1}"#, 400),
        ] as [(String, String?, Int)] {
            let response = try await service.get(path, method: "POST", body: body)
            #expect(response.status == status, "\(path): \(String(decoding: response.body, as: UTF8.self))")
            #expect(String(decoding: response.body, as: UTF8.self).contains("\"message\""))
        }
    }

    @Test func a_request_id_too_long_or_used_by_a_create_is_refused_and_records_nothing() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let before = try await records(service, car: 1).count
        let long = try await service.get(
            "RecordService?carID=1&mileage=5",
            headers: ["Repeatability-Request-ID": String(repeating: "x", count: 101)],
            method: "POST")
        #expect(long.status == 400)
        let made = try await service.get(
            "Car", headers: ["Repeatability-Request-ID": "made-a-car"], method: "POST",
            body: #"{"make":"Once","model":"Car","manufactureDate":"\/Date(0)\/"}"#)
        #expect(made.status == 201)
        let reused = try await service.get(
            "RecordService?carID=1&mileage=5", headers: ["Repeatability-Request-ID": "made-a-car"], method: "POST")
        #expect(reused.status == 400, "\(String(decoding: reused.body, as: UTF8.self))")
        #expect(try await records(service, car: 1).count == before)
    }
}
