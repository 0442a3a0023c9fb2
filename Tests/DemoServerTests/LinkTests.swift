import DemoServer
import Foundation
import ODataCore
import Testing

/// `$links` on the built-in service: read, moved, never cut (every link entity needs both its ends).
struct LinkTests {
    /// The URIs a `GET` of links answers.
    func uris(_ service: LiveService, _ path: String) async throws -> [String] {
        let response = try await service.get(path)
        #expect(response.status == 200, "\(path): \(String(decoding: response.body, as: UTF8.self))")
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        let d = object?["d"]
        if let one = d as? [String: Any], let uri = one["uri"] as? String { return [uri] }
        if let many = (d as? [String: Any])?["results"] as? [[String: Any]] {
            return many.compactMap { $0["uri"] as? String }
        }
        return []
    }

    func text(_ body: Data) -> String { String(decoding: body, as: UTF8.self) }

    @Test func links_are_read_moved_and_replayed_once_but_never_cut() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let root = service.server.baseURL
        // Given Person(1)'s ownerships, and the car of the first
        let owned = try await uris(service, "Person(1)/$links/PersonCar")
        let first = try #require(owned.first)
        #expect(first.hasPrefix(root + "PersonCar("))
        let link = String(first.dropFirst(root.count))
        let car = try await uris(service, "\(link)/$links/Car")
        #expect(car.count == 1 && car[0].hasPrefix(root + "Car("))
        #expect(try await uris(service, "Person(1)/$links/PersonCar(\(link.dropFirst("PersonCar(".count))") == [first])
        let before = try await service.get(link).headers["etag"]

        // When the ownership is pointed at Car(3) (to one: PUT), its ETag moves on
        let put = try await service.get("\(link)/$links/Car", method: "PUT", body: #"{"uri":"\#(root)Car(3)"}"#)
        #expect(put.status == 204, "\(text(put.body))")
        #expect(try await uris(service, "\(link)/$links/Car") == [root + "Car(3)"])
        #expect(put.headers["etag"] != nil && put.headers["etag"] != before)

        // When Person(2) takes it over (to many: POST), under a request id
        let moved = try await service.get(
            "Person(2)/%24links/PersonCar", headers: ["Repeatability-Request-ID": "move-1"], method: "POST",
            body: #"{"uri":"\#(link)"}"#)
        #expect(moved.status == 204 && moved.headers["repeatability-result"] == "accepted", "\(text(moved.body))")
        #expect(try await uris(service, "Person(2)/$links/PersonCar").contains(first))
        #expect(try await !uris(service, "Person(1)/$links/PersonCar").contains(first))
        // and Person(3) after it, then the first request is replayed: it changes nothing again
        let again = try await service.get(
            "\(link)/$links/Person", method: "MERGE", body: #"{"uri":"Person(3)"}"#)
        #expect(again.status == 204)
        let replay = try await service.get(
            "Person(2)/$links/PersonCar", headers: ["Repeatability-Request-ID": "move-1"], method: "POST",
            body: #"{"uri":"\#(link)"}"#)
        #expect(replay.status == 204)
        #expect(try await uris(service, "\(link)/$links/Person") == [root + "Person(3)"])

        // Then a link cannot be cut, a wrong uri is named, and an unknown navigation is a 404
        let cut = try await service.get("\(link)/$links/Car", method: "DELETE")
        #expect(cut.status == 400 && text(cut.body).contains("cannot be removed"), "\(text(cut.body))")
        let wrong = try await service.get("\(link)/$links/Car", method: "PUT", body: #"{"uri":"Person(1)"}"#)
        #expect(wrong.status == 400 && text(wrong.body).contains("must name a Car"), "\(text(wrong.body))")
        let missing = try await service.get("\(link)/$links/Car", method: "PUT", body: #"{"uri":"Car(999999)"}"#)
        #expect(missing.status == 400 && text(missing.body).contains("does not exist"), "\(text(missing.body))")
        #expect(try await service.get("Person(1)/$links/Garage").status == 404)
        #expect(try await service.get("Person(1)/$links/PersonCar", method: "PUT", body: "{}").status == 405)
    }
}
