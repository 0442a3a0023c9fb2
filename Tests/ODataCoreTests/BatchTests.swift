import Foundation
import Testing

@testable import ODataCore

/// `$batch` as values: the request a batch is sent as, in both formats, and its answers read back into one answer
/// per request (or per changeset refused as a unit), with a sentence for every answer that does not fit.
@Suite struct BatchTests {
    static let root = "http://h/sap/S/"

    static func item(
        _ method: RequestMethod, _ path: String, body: String? = nil, id: String, headers: [String: String] = [:]
    )
        -> ODataBatch.Item
    {
        ODataBatch.Item(
            request: TransportRequest(
                method: method, url: root + path, headers: headers, body: body.map { Array($0.utf8) }),
            contentID: id)
    }

    static let batch = ODataBatch(changesets: [
        [item(.merge, "Cars(1)", body: #"{"model":"Ka"}"#, id: "1", headers: ["If-Match": "W/\"7\""])],
        [
            item(.post, "Cars", body: #"{"model":"Focus"}"#, id: "2"),
            item(.post, "Owners", body: #"{"Car":{"__metadata":{"uri":"$2"}}}"#, id: "3"),
        ],
    ])

    @Test func multipart_request_holds_each_changeset_with_relative_urls_and_content_ids() {
        let request = Self.batch.request(serviceRoot: Self.root, dialect: .v2, format: .multipart, boundary: "B")
        #expect(request.method == .post && request.url == Self.root + "$batch")
        #expect(request.headers["Content-Type"] == "multipart/mixed; boundary=batch_B")
        let text = String(decoding: request.body ?? [], as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.first == "--batch_B" && text.hasSuffix("\r\n--batch_B--\r\n"))
        #expect(lines.filter { $0.hasPrefix("Content-Type: multipart/mixed; boundary=changeset_B_") }.count == 2)
        #expect(lines.contains("MERGE Cars(1) HTTP/1.1") && lines.contains("POST Owners HTTP/1.1"))
        #expect(lines.contains("If-Match: W/\"7\"") && lines.contains("Content-ID: 3"))
        #expect(lines.contains("DataServiceVersion: 2.0") && lines.contains("Content-Length: 17"))
        #expect(lines.contains(#"{"Car":{"__metadata":{"uri":"$2"}}}"#))
    }

    @Test func a_header_value_cannot_start_a_line_of_its_own() {
        let batch = ODataBatch(changesets: [
            [Self.item(.delete, "Cars(1)", id: "1", headers: ["If-Match": "x\r\nDELETE People(1) HTTP/1.1"])]
        ])
        let text = String(
            decoding: batch.request(serviceRoot: Self.root, dialect: .v2, format: .multipart, boundary: "B").body ?? [],
            as: UTF8.self)
        #expect(!text.components(separatedBy: "\r\n").contains("DELETE People(1) HTTP/1.1"))
    }

    @Test func json_request_groups_a_changeset_by_atomicity_group_and_embeds_bodies_as_values() throws {
        let request = Self.batch.request(serviceRoot: Self.root, dialect: .v4, format: .json, boundary: "B")
        #expect(request.headers["Content-Type"] == "application/json")
        let document = try JSONReader().read(request.body ?? [])
        guard case .array(let requests)? = document["requests"] else {
            Issue.record("no requests array")
            return
        }
        #expect(requests.count == 3)
        #expect(requests[0]["method"] == .string("MERGE") && requests[0]["url"] == .string("Cars(1)"))
        #expect(requests[1]["atomicityGroup"] == requests[2]["atomicityGroup"])
        #expect(requests[0]["atomicityGroup"] != requests[1]["atomicityGroup"])
        #expect(requests[1]["body"]?["model"] == .string("Focus"))
        #expect(requests[0]["headers"]?["If-Match"] == .string("W/\"7\""))
    }

    /// An answer shaped as SAP Gateway (and mock-sap) sends one: the first changeset applied, the second refused as
    /// a unit with one bare `application/http` part.
    static func sapAnswer(secondRefused: Bool) -> TransportResponse {
        var text = "--batchresponse_x\r\nContent-Type: multipart/mixed; boundary=changesetresponse_y\r\n\r\n"
        text += "--changesetresponse_y\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n"
        text += "HTTP/1.1 204 No Content\r\nETag: W/\"8\"\r\nContent-Length: 0\r\n\r\n\r\n--changesetresponse_y--\r\n"
        if secondRefused {
            text += "--batchresponse_x\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n"
            text += "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 46\r\n\r\n"
            text += #"{"error":{"message":{"value":"Car required"}}}"# + "\r\n"
        } else {
            text += "--batchresponse_x\r\nContent-Type: multipart/mixed; boundary=c2\r\n\r\n"
            for (id, body) in [("2", #"{"d":{"id":9}}"#), ("3", #"{"d":{"id":4}}"#)] {
                text += "--c2\r\nContent-Type: application/http\r\nContent-ID: \(id)\r\n\r\n"
                text += "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n\r\n\(body)\r\n"
            }
            text += "--c2--\r\n"
        }
        text += "--batchresponse_x--\r\n"
        return TransportResponse(
            status: 202, headers: ["content-type": "multipart/mixed; boundary=batchresponse_x"], body: Array(text.utf8))
    }

    @Test func multipart_answer_gives_each_request_its_own_answer() throws {
        let answers = try Self.batch.decode(Self.sapAnswer(secondRefused: false), format: .multipart, url: "u")
        #expect(answers.count == 2)
        #expect(answers[0].answer(at: 0)?.status == 204 && answers[0].answer(at: 0)?.etag == "W/\"8\"")
        #expect(answers[0].answer(at: 0)?.body == [])
        #expect(answers[1].answer(at: 1).map { String(decoding: $0.body, as: UTF8.self) } == #"{"d":{"id":4}}"#)
    }

    @Test func a_changeset_refused_as_a_unit_answers_every_request_in_it_with_that_refusal() throws {
        let answers = try Self.batch.decode(Self.sapAnswer(secondRefused: true), format: .multipart, url: "u")
        guard case .whole(let refusal) = answers[1] else {
            Issue.record("expected the changeset refused as a unit, got \(answers[1])")
            return
        }
        #expect(refusal.status == 400 && answers[1].answer(at: 0) == refusal && answers[1].answer(at: 1) == refusal)
        #expect(
            ODataError.fromResponse(status: 400, url: nil, contentType: "application/json", body: refusal.body)
                .description.contains("Car required"))
    }

    @Test func json_answer_is_matched_by_id_and_a_failed_group_answers_for_all_of_it() throws {
        let body = #"""
            {"responses":[{"id":"3","status":424,"headers":{"content-type":"application/json"},"body":{"error":{"message":"no"}}},
            {"id":"1","status":204,"headers":{"ETag":"W/\"9\""}}]}
            """#
        let answers = try Self.batch.decode(
            TransportResponse(status: 200, headers: ["content-type": "application/json"], body: Array(body.utf8)),
            format: .json, url: "u")
        #expect(answers[0].answer(at: 0)?.status == 204 && answers[0].answer(at: 0)?.etag == "W/\"9\"")
        guard case .whole(let refusal) = answers[1] else {
            Issue.record("expected the group refused as a unit")
            return
        }
        #expect(
            refusal.status == 424 && String(decoding: refusal.body, as: UTF8.self) == #"{"error":{"message":"no"}}"#)
    }

    @Test(arguments: [
        ("text/plain", "--x\r\n\r\nHTTP/1.1 200 OK\r\n\r\n--x--", "not multipart/mixed with a boundary"),
        ("multipart/mixed; boundary=y", "--x\r\n\r\nHTTP/1.1 200 OK\r\n\r\n--x--", "no part begins with its boundary"),
        (
            "multipart/mixed; boundary=x",
            "--x\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n\r\n--x--", "1 answers for 2"
        ),
        (
            "multipart/mixed; boundary=x",
            "--x\r\nContent-Type: application/http\r\n\r\nGarbage\r\n\r\n--x\r\n\r\nHTTP/1.1 204 OK\r\n\r\n--x--",
            "not an HTTP answer"
        ),
        (
            "multipart/mixed; boundary=x",
            "--x\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c\r\nContent-Type: application/http\r\nContent-ID: 99\r\n\r\nHTTP/1.1 204 OK\r\n\r\n--c--\r\n--x\r\n\r\nHTTP/1.1 204 OK\r\n\r\n--x--",
            "Content-ID 99"
        ),
        (
            "multipart/mixed; boundary=x",
            "--x\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c\r\nContent-Type: multipart/mixed; boundary=d\r\n\r\n--d\r\n\r\n--d--\r\n--c--\r\n--x\r\n\r\nHTTP/1.1 204 OK\r\n\r\n--x--",
            "nested deeper"
        ),
        ("application/json", #"{"responses":[{"id":"1","status":204}]}"#, "request 2 got no answer"),
        ("application/json", #"{"responses":[{"id":"7","status":204}]}"#, "id 7"),
        ("application/json", #"{"value":[]}"#, "no \"responses\" array"),
        ("application/json", #"{"responses":[{"id":"1"}]}"#, "has no status"),
        ("application/json", #"{"responses":["#, "Invalid JSON"),
    ])
    func an_answer_that_does_not_fit_the_batch_is_a_sentence(contentType: String, body: String, expected: String) {
        let batch = ODataBatch(changesets: [
            [Self.item(.delete, "Cars(1)", id: "1")], [Self.item(.delete, "Cars(2)", id: "2")],
        ])
        do {
            let answers = try batch.decode(
                TransportResponse(status: 202, headers: ["content-type": contentType], body: Array(body.utf8)),
                format: .multipart, url: "u")
            Issue.record("read as \(answers)")
        } catch {
            #expect(error.kind == .refused)
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }

    @Test func a_refused_batch_is_the_services_own_error() {
        do {
            _ = try Self.batch.decode(
                TransportResponse(
                    status: 501, headers: ["content-type": "application/json"],
                    body: Array(#"{"error":{"code":"x","message":{"value":"$batch is not supported"}}}"#.utf8)),
                format: .multipart, url: "u")
            Issue.record("accepted")
        } catch {
            #expect(error.status == 501 && error.description.contains("$batch is not supported"))
        }
    }

    /// What ``ODataBatch/request(serviceRoot:dialect:format:boundary:)`` writes, read back by the same reader the
    /// answers go through: the parts and their requests come out as they went in.
    @Test func a_multipart_request_reads_back_part_by_part() throws {
        let request = Self.batch.request(serviceRoot: Self.root, dialect: .v2, format: .multipart, boundary: "B")
        let parts = try Multipart.parts(of: (request.body ?? [])[...], boundary: "batch_B")
        #expect(parts.count == 2)
        let inner = try Multipart.parts(
            of: parts[1].body, boundary: try #require(Multipart.boundary(of: parts[1].headers["content-type"] ?? "")))
        #expect(inner.map { $0.headers["content-id"] } == ["2", "3"])
        let text = String(decoding: inner[1].body, as: UTF8.self)
        #expect(text.hasPrefix("POST Owners HTTP/1.1\r\n") && text.hasSuffix(#"{"Car":{"__metadata":{"uri":"$2"}}}"#))
    }
}
