import DemoServer
import Foundation
import ODataCore
import Testing

/// The built-in service's `$batch` (issue 34): both formats, changesets applied all or nothing, `$<Content-ID>`
/// references, and a sentence for every batch or part it cannot take. Outcomes are read back with plain requests.
struct DemoBatchTests {
    func count(_ service: LiveService, _ set: String, version4: Bool = false) async throws -> Int {
        let root = version4 ? service.server.version4URL : service.server.baseURL
        let response = try await service.get(root + set + "/$count")
        return Int(String(decoding: response.body, as: UTF8.self)) ?? -1
    }

    func post(
        _ service: LiveService, _ body: String, contentType: String, version4: Bool = false
    ) async throws
        -> (status: Int, headers: [String: String], body: Data)
    {
        let root = version4 ? service.server.version4URL : service.server.baseURL
        return try await service.get(
            root + "$batch", headers: ["Content-Type": contentType], method: "POST", body: body)
    }

    static let car = #"{"make":"Batch","model":"Made","manufactureDate":"\/Date(0)\/"}"#

    /// A v2 multipart batch as SAP clients write it by hand: CRLF, relative targets, a changeset per unit of work.
    static func multipart(_ changesets: [[(id: String, line: String, body: String?)]]) -> String {
        var text = ""
        for (number, changeset) in changesets.enumerated() {
            text += "--b\r\nContent-Type: multipart/mixed; boundary=c\(number)\r\n\r\n"
            for request in changeset {
                text += "--c\(number)\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n"
                text +=
                    "Content-ID: \(request.id)\r\n\r\n\(request.line) HTTP/1.1\r\nContent-Type: application/json\r\n\r\n"
                text += (request.body ?? "") + "\r\n"
            }
            text += "--c\(number)--\r\n"
        }
        return text + "--b--\r\n"
    }

    @Test func a_changeset_makes_a_car_and_its_ownership_naming_the_car_by_content_id() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let (cars, links) = (try await count(service, "Car"), try await count(service, "PersonCar"))
        let body = Self.multipart([
            [
                ("1", "POST Car", Self.car),
                (
                    "2", "POST PersonCar",
                    #"{"Car":{"__metadata":{"uri":"$1"}},"Person":{"__metadata":{"uri":"Person(1)"}}}"#
                ),
            ]
        ])
        let response = try await post(service, body, contentType: "multipart/mixed; boundary=b")
        #expect(response.status == 202)
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.components(separatedBy: "HTTP/1.1 201 Created").count == 3, "\(text)")
        #expect(text.contains("Content-ID: 1") && text.contains("Content-ID: 2"))
        let (carsAfter, linksAfter) = (try await count(service, "Car"), try await count(service, "PersonCar"))
        #expect(carsAfter == cars + 1 && linksAfter == links + 1)
        let owned = try await service.get("Person(1)/PersonCar?$expand=Car")
        #expect(String(decoding: owned.body, as: UTF8.self).contains("\"model\":\"Made\""))
    }

    @Test func a_changeset_refused_in_the_middle_changes_nothing_and_the_next_one_still_applies() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let cars = try await count(service, "Car")
        let body = Self.multipart([
            [
                ("1", "POST Car", Self.car),
                (
                    "2", "POST PersonCar",
                    #"{"Car":{"__metadata":{"uri":"$1"}},"Person":{"__metadata":{"uri":"Person(99999)"}}}"#
                ),
            ],
            [("3", "MERGE Car(2)", #"{"model":"Second"}"#)],
        ])
        let response = try await post(service, body, contentType: "multipart/mixed; boundary=b")
        #expect(response.status == 202)
        let text = String(decoding: response.body, as: UTF8.self)
        // The first changeset answers with its one error, bare; the second with its own answer
        #expect(text.contains("HTTP/1.1 400 Bad Request") && text.contains("Person(99999)"))
        #expect(!text.contains("201 Created") && text.contains("HTTP/1.1 204 No Content"))
        #expect(try await count(service, "Car") == cars)
        let second = try await service.get("Car(2)")
        #expect(String(decoding: second.body, as: UTF8.self).contains("\"model\":\"Second\""))
    }

    @Test func a_json_batch_answers_a_refused_group_by_its_refused_request() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let cars = try await count(service, "Car", version4: true)
        let body = #"""
            {"requests":[
            {"id":"a","atomicityGroup":"g","method":"POST","url":"Car","body":{"make":"J","model":"Group","manufactureDate":"2020-01-01T00:00:00Z"}},
            {"id":"b","atomicityGroup":"g","method":"POST","url":"PersonCar","body":{"Car@odata.bind":"$a","Person@odata.bind":"Person(424242)"}},
            {"id":"c","method":"PATCH","url":"Car(1)","headers":{"If-Match":"*"},"body":{"model":"Alone"}}]}
            """#
        let response = try await post(service, body, contentType: "application/json", version4: true)
        #expect(response.status == 200)
        let answer = try JSONReader().read(Array(response.body))
        guard case .array(let responses)? = answer["responses"] else {
            Issue.record("no responses: \(String(decoding: response.body, as: UTF8.self))")
            return
        }
        #expect(responses.count == 2)
        #expect(responses[0]["id"] == .string("b") && responses[0]["status"] == .number("400"))
        #expect(responses[1]["id"] == .string("c") && responses[1]["status"] == .number("204"))
        #expect(try await count(service, "Car", version4: true) == cars)
    }

    @Test func parts_it_cannot_carry_out_are_answered_each_and_the_rest_goes_on() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        // LF line ends, a read, a target outside the service, a garbled request line, and one good change by its
        // absolute path
        let body = [
            "--b", "Content-Type: application/http", "", "GET Car(1) HTTP/1.1", "", "",
            "--b", "Content-Type: application/http", "", "DELETE http://elsewhere.example/Car(1) HTTP/1.1", "", "",
            "--b", "Content-Type: application/http", "", "NOT A REQUEST", "", "",
            "--b", "Content-Type: multipart/mixed; boundary=c", "",
            "--c", "Content-Type: application/http", "", "MERGE /CarDealer.svc/Car(3) HTTP/1.1",
            "Content-Type: application/json", "", #"{"model":"By path"}"#, "--c--", "--b--", "",
        ].joined(separator: "\n")
        let response = try await post(service, body, contentType: "multipart/mixed; boundary=b")
        #expect(response.status == 202)
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.contains("HTTP/1.1 501 Not Implemented") && text.contains("send reads alone"))
        #expect(text.contains("is not under this service's root") && text.contains("not an HTTP request"))
        #expect(text.contains("HTTP/1.1 204 No Content"))
        let third = try await service.get("Car(3)")
        #expect(String(decoding: third.body, as: UTF8.self).contains("\"model\":\"By path\""))
    }

    @Test func a_batch_it_cannot_read_is_a_400_and_one_too_large_a_413() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let unbounded = try await post(service, "--b\r\n\r\n--b--", contentType: "multipart/mixed")
        #expect(unbounded.status == 400)
        #expect(String(decoding: unbounded.body, as: UTF8.self).contains("boundary"))
        let json = try await post(service, #"{"requests":"#, contentType: "application/json", version4: true)
        #expect(json.status == 400)
        let many = (0...1_000).map { #"{"id":"\#($0)","method":"DELETE","url":"Car(999999)"}"# }
        let tooMany = try await post(
            service, #"{"requests":["# + many.joined(separator: ",") + "]}", contentType: "application/json",
            version4: true)
        #expect(tooMany.status == 413)
        #expect(try await count(service, "Car") > 0)
    }
}
