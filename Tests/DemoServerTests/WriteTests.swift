import DemoServer
import Foundation
import ODataCore
import Testing

/// The built-in service changes and deletes entities as OData v2 servers do: ETags, If-Match, validation in
/// words, repeatability, cascading deletes of link entities.
struct WriteTests {
    func car(_ service: LiveService, _ id: Int) async throws -> (entity: ODataEntity?, etag: String?) {
        let response = try await service.get("Car(\(id))")
        guard response.status == 200,
            case .entity(let entity) = try PayloadDecoder(serviceRoot: service.server.baseURL)
                .decode(Array(response.body))
        else { return (nil, nil) }
        return (entity, response.headers["etag"])
    }

    @Test func merge_changes_only_the_fields_sent_and_moves_the_etag_on() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let (before, etag) = try await car(service, 1)
        let original = try #require(before)
        // When the model is merged with the current ETag
        let response = try await service.get(
            "Car(1)", headers: ["If-Match": try #require(etag)], method: "MERGE", body: #"{"model":"Ka"}"#)
        // Then 204 with a new ETag, the model changed and the make kept
        #expect(response.status == 204)
        let (after, newTag) = try await car(service, 1)
        #expect(after?["model"] == .string("Ka") && after?["make"] == original["make"])
        #expect(newTag != nil && newTag != etag && response.headers["etag"] == newTag)
        // And the old ETag is stale now: 412, nothing changed
        let stale = try await service.get(
            "Car(1)", headers: ["If-Match": etag!], method: "PATCH", body: #"{"model":"X"}"#)
        #expect(stale.status == 412)
        #expect(String(decoding: stale.body, as: UTF8.self).contains("was changed since it was read"))
        #expect(try await car(service, 1).entity?["model"] == .string("Ka"))
        // And a tunnelled MERGE (POST with X-HTTP-Method) works as well
        let tunnelled = try await service.get(
            "Car(1)", headers: ["X-HTTP-Method": "MERGE", "If-Match": "*"], method: "POST", body: #"{"model":"Puma"}"#)
        #expect(tunnelled.status == 204)
        #expect(try await car(service, 1).entity?["model"] == .string("Puma"))
    }

    @Test func bad_input_is_a_400_naming_the_property_and_the_rule() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let model = try await car(service, 1).entity?["model"]
        let cases: [(String, String, String)] = [
            ("Car(1)", #"{"colour":"red"}"#, "Car has no property colour."),
            (
                "Car(1)", #"{"model":"\#(String(repeating: "x", count: 51))"}"#,
                "model takes at most 50 characters (this has 51)."
            ),
            ("Car(1)", #"{"model":7}"#, "model is an Edm.String, not a number."),
            ("Car(1)", #"{"carID":2}"#, "carID is the key of Car(1); it cannot change."),
            ("Maintenance(1)", #"{"cost":"12.345"}"#, "cost takes at most 2 digits after the point."),
            ("Maintenance(1)", #"{"mileage":3000000000}"#, "mileage is an Edm.Int32"),
            ("Maintenance(1)", #"{"serviceDate":"yesterday"}"#, "serviceDate is an Edm.DateTime"),
            ("Car(1)", #"[1,2]"#, "The body is a JSON object of properties, not an array."),
            ("Car(1)", #"{"model":"#, "The body is not JSON"),
        ]
        for (path, body, words) in cases {
            let response = try await service.get(path, method: "MERGE", body: body)
            let text = String(decoding: response.body, as: UTF8.self)
            #expect(response.status == 400, "\(body): \(response.status)")
            #expect(text.contains(words), "\(body): \(text)")
        }
        // And nothing changed
        #expect(try await car(service, 1).entity?["model"] == model)
    }

    @Test func a_repeated_request_id_gets_the_first_outcome_and_changes_nothing_again() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let (_, etag) = try await car(service, 1)
        let headers = [
            "If-Match": try #require(etag), "Repeatability-Request-ID": "r-1",
            "Repeatability-First-Sent": "Tue, 24 Nov 2026 14:00:00 GMT",
        ]
        let first = try await service.get("Car(1)", headers: headers, method: "MERGE", body: #"{"model":"Ka"}"#)
        // When the same request arrives again (its answer was lost), even with a different body
        let again = try await service.get("Car(1)", headers: headers, method: "MERGE", body: #"{"model":"Other"}"#)
        // Then it gets the first outcome (not a 412 for its now stale If-Match) and changes nothing
        #expect(first.status == 204 && again.status == 204)
        #expect(again.headers["etag"] == first.headers["etag"] && again.headers["repeatability-result"] == "accepted")
        let (now, tag) = try await car(service, 1)
        #expect(now?["model"] == .string("Ka") && tag == first.headers["etag"])
    }

    @Test func delete_takes_the_link_entities_with_it_and_a_second_delete_is_a_404() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        // Given Car(2), owned through PersonCar(1)
        #expect(try await service.get("PersonCar(1)/Car").status == 200)
        // When it is deleted
        let response = try await service.get("Car(2)", method: "DELETE")
        // Then it and its ownerships are gone, and deleting again says so
        #expect(response.status == 204)
        #expect(try await service.get("Car(2)").status == 404)
        #expect(try await service.get("PersonCar(1)").status == 404)
        #expect(try await service.get("Car(2)", method: "DELETE").status == 404)
        // And a hostile string merged elsewhere comes back byte-exact (a NUL, which SQLite would cut, is refused)
        let nul = String(
            decoding: RequestBodyEncoder.object([.init(name: "model", value: .string("a\u{0}b"))]), as: UTF8.self)
        let refused = try await service.get("Car(1)", method: "MERGE", body: nul)
        #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("NUL character"))
        let hostile = "\u{1B}]0;owned\u{07}\u{202E}Zoë\u{7F}🚗"
        let body = String(
            decoding: RequestBodyEncoder.object([.init(name: "model", value: .string(hostile))]), as: UTF8.self)
        #expect(try await service.get("Car(1)", method: "MERGE", body: body).status == 204)
        let back = try await car(service, 1).entity?["model"]
        #expect(
            back == .string(hostile), "\(String(describing: back).unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func a_read_only_service_refuses_every_change_in_words() async throws {
        let path = NSTemporaryDirectory() + "demo-readonly-\(UUID().uuidString).sqlite"
        let service = LiveService(
            server: try await DemoServer.start(DemoServerConfiguration(people: 5, dataPath: path, readOnly: true)))
        defer { Task { await service.server.stop() } }
        for (method, path) in [("MERGE", "Car(1)"), ("DELETE", "Car(1)"), ("POST", "Car"), ("PUT", "Car(1)")] {
            let response = try await service.get(path, method: method, body: method == "DELETE" ? nil : "{}")
            #expect(response.status == 403, "\(method)")
            #expect(String(decoding: response.body, as: UTF8.self).contains("read-only (started with --read-only)"))
        }
        #expect(try await service.get("Car(1)").status == 200)
    }
}

extension WriteTests {
    static let newCar = #"{"make":"Trabant","model":"601","manufactureDate":"\/Date(0)\/"}"#

    @Test func post_makes_an_entity_under_a_key_of_the_services_and_a_replay_makes_nothing() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        // When a car is posted under a request id
        let made = try await service.get(
            "Car", headers: ["Repeatability-Request-ID": "make-1"], method: "POST", body: Self.newCar)
        // Then 201 with the entity, where it lives and its ETag
        #expect(made.status == 201)
        let location = try #require(made.headers["location"])
        guard case .entity(let entity) = try PayloadDecoder(serviceRoot: service.server.baseURL).decode(made.body)
        else {
            Issue.record("no entity in \(String(decoding: made.body, as: UTF8.self))")
            return
        }
        let key = try #require(entity.key)
        #expect(location.hasSuffix(key.canonical) && entity["make"] == .string("Trabant"))
        #expect(made.headers["etag"] != nil && made.headers["repeatability-result"] == "accepted")
        // And the same request again answers with that entity and makes no second one
        let replay = try await service.get(
            "Car", headers: ["Repeatability-Request-ID": "make-1"], method: "POST", body: Self.newCar)
        #expect(replay.status == 201 && replay.headers["location"] == location)
        let all = try await service.get("Car?$filter=make%20eq%20'Trabant'")
        guard case .collection(let cars) = try PayloadDecoder(serviceRoot: service.server.baseURL).decode(all.body)
        else { return }
        #expect(cars.entities.count == 1)
    }

    @Test func a_link_entity_is_made_under_its_parent_binding_the_other_end_and_refused_without_it() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        // When an ownership is posted under Person(3), binding Car(1)
        let made = try await service.get(
            "Person(3)/PersonCar", method: "POST", body: #"{"Car":{"__metadata":{"uri":"Car(1)"}}}"#)
        #expect(made.status == 201, "\(String(decoding: made.body, as: UTF8.self))")
        // Then Person(3)'s cars include Car(1)
        let owned = try await service.get("Person(3)/PersonCar?$expand=Car&$select=Car/carID")
        #expect(String(decoding: owned.body, as: UTF8.self).contains("\"carID\":1"))
        // And what cannot be made is refused in words, naming what is missing or wrong
        let cases: [(String, String, String)] = [
            ("PersonCar", #"{"Car":{"__metadata":{"uri":"Car(1)"}}}"#, "PersonCar needs its Person"),
            (
                "Person(3)/PersonCar", #"{"Car":{"__metadata":{"uri":"Car(999999)"}}}"#,
                "Car(999999), named by Car, does not exist"
            ),
            ("Person(3)/PersonCar", #"{"Car":"Car(1)"}"#, "Car binds an existing Car"),
            ("Car", #"{"make":"x"}"#, "model is required"),
            ("Car", #"{"carID":1,"make":"x","model":"y","manufactureDate":"\/Date(0)\/"}"#, "Car(1) exists already"),
            ("Car", #"{"make":"x","model":"y","manufactureDate":"\/Date(0)\/","PersonCar":[]}"#, "no deep insert"),
        ]
        for (path, body, words) in cases {
            let refused = try await service.get(path, method: "POST", body: body)
            let text = String(decoding: refused.body, as: UTF8.self)
            #expect((400...409).contains(refused.status) && text.contains(words), "\(path) \(body): \(text)")
        }
    }
}

extension WriteTests {
    @Test func the_fail_rate_refuses_some_writes_and_makes_others_whose_answer_is_lost() async throws {
        // Given the service failing every request: half of a write's failures refused, half made but unanswered
        let path = NSTemporaryDirectory() + "demo-lost-\(UUID().uuidString).sqlite"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let failing = LiveService(
            server: try await DemoServer.start(DemoServerConfiguration(people: 5, dataPath: path, failRate: 1)))
        var refused: [String] = []
        var lost: [String] = []
        for index in 0..<12 {
            let model = "Model-\(index)"
            do {
                let response = try await failing.get(
                    "Car(\(index % 5 + 1))", headers: ["If-Match": "*"], method: "MERGE",
                    body: #"{"model":"\#(model)"}"#)
                #expect(response.status == 503, "a write answered \(response.status)")
                refused.append(model)
            } catch {
                lost.append(model)  // the connection closed before the promised body
            }
        }
        await failing.server.stop()
        #expect(!refused.isEmpty && !lost.isEmpty, "refused \(refused), lost \(lost)")
        // Then the lost ones were made and the refused ones were not (read back through a service without faults)
        let clean = LiveService(server: try await DemoServer.start(DemoServerConfiguration(people: 5, dataPath: path)))
        defer { Task { await clean.server.stop() } }
        var models: Set<String> = []
        for id in 1...5 {
            if case .string(let model)? = try await car(clean, id).entity?["model"] { models.insert(model) }
        }
        #expect(models.isDisjoint(with: refused))
        // Each car keeps the last of its lost writes
        for id in 1...5 {
            let last = lost.last { Int($0.dropFirst("Model-".count))! % 5 + 1 == id }
            if let last { #expect(models.contains(last), "Car(\(id)) should read \(last); cars read \(models)") }
        }
    }
}
