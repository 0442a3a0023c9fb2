import DemoServer
import Foundation
import ODataCore
import Testing

/// A car's options, kept inside the car by the built-in service's v4 root (issue 37): no entity set of them, each read,
/// changed and deleted through its car, a new one posted to its car; v2, which has no containment, publishes them as a
/// set of their own. Over real HTTP, each outcome read back with plain requests.
@Suite struct ContainedOptionsTests {
    func send(
        _ service: LiveService, _ method: String, _ url: String, _ body: String? = nil
    ) async throws -> (status: Int, headers: [String: String], text: String) {
        let response = try await service.get(url, headers: ["If-Match": "*"], method: method, body: body)
        return (response.status, response.headers, String(decoding: response.body, as: UTF8.self))
    }

    @Test func options_live_inside_their_car_in_v4_and_in_a_set_of_their_own_in_v2() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let v4 = service.server.version4URL
        let model = try EDMXParser.parse(Array(try await service.get(v4 + "$metadata").body))
        #expect(model.entitySet(named: "CarOption") == nil)
        #expect(model.resolveNavigation("Options", fromSet: "Car")?.isContained == true)
        #expect(model.resolveNavigation("Car", fromSet: "Car(2)/Options")?.targetSet == "Car")
        let listed = try await send(service, "GET", v4)
        #expect(!listed.text.contains("CarOption"))
        // Car 2's options, through it; the same option through another car is not there
        let options = try await send(service, "GET", v4 + "Car(2)/Options")
        #expect(options.status == 200 && options.text.contains(#"$metadata#Car(2)\/Options""#))
        let rows = try #require(
            (try JSONSerialization.jsonObject(with: Data(options.text.utf8)) as? [String: Any])?["value"]
                as? [[String: Any]])
        let first = try #require(rows.first?["optionID"] as? Int)
        #expect(try await send(service, "GET", v4 + "Car(2)/Options(\(first))").status == 200)
        #expect(try await send(service, "GET", v4 + "Car(3)/Options(\(first))").status == 404)
        #expect(try await send(service, "PATCH", v4 + "Car(3)/Options(\(first))", #"{"name":"X"}"#).status == 404)
        #expect(try await send(service, "DELETE", v4 + "Car(3)/Options(\(first))").status == 404)
        // No set of them at the top
        let top = try await send(service, "GET", v4 + "CarOption")
        #expect(top.status == 404 && top.text.contains(#"Car(key)\/Options"#))
        #expect(try await send(service, "POST", v4 + "CarOption", #"{"name":"X","price":1}"#).status == 404)
        #expect(try await send(service, "PATCH", v4 + "CarOption(\(first))", #"{"name":"X"}"#).status == 404)
        // A new one, posted to its car, is named by the path through it
        let made = try await send(service, "POST", v4 + "Car(3)/Options", #"{"name":"Bull bar","price":300}"#)
        #expect(made.status == 201)
        let location = try #require(made.headers["location"])
        #expect(location.hasPrefix(v4 + "Car(3)/Options("))
        #expect(made.text.contains(#"$metadata#Car(3)\/Options\/$entity"#))
        #expect(try await send(service, "PATCH", location, #"{"price":310}"#).status == 204)
        #expect(try await send(service, "GET", location).text.contains(#""price":310.00"#))
        #expect(try await send(service, "DELETE", location).status == 204)
        #expect(try await send(service, "GET", location).status == 404)
        // v2 has no containment: a set of their own, joined to the cars by an association
        let v2 = try await send(service, "GET", service.server.baseURL + "CarOption(\(first))")
        #expect(v2.status == 200 && v2.text.contains(#""__deferred""#))
    }

    @Test func deleting_a_car_deletes_its_options() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let v4 = service.server.version4URL
        let made = try await send(service, "POST", v4 + "Car(4)/Options", #"{"name":"Tow bar","price":450}"#)
        let location = try #require(made.headers["location"])
        #expect(try await send(service, "DELETE", v4 + "Car(4)").status == 204)
        #expect(try await send(service, "GET", location).status == 404)
        let key = try #require(location.split(separator: "(").last.map { String($0.dropLast()) })
        #expect(try await send(service, "GET", service.server.baseURL + "CarOption(\(key))").status == 404)
    }
}
