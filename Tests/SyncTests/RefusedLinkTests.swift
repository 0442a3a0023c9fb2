import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import Sync

/// A car added to a person's cars is two writes, the car and the ownership that links it. A service that refuses
/// the ownership (it wants the link's key from the client) has made the car already: the outbox says what that left
/// on the service, dropping the link deletes the car there too, and editing it sends the link's fields typed then
/// (issue 32, item 2).
@Suite struct RefusedLinkTests {
    static let root = SyncEngineTests.root
    static let cars = ScreenContent.related(parent: "Person(1)", path: ["PersonCar", "Car"])

    /// A service that makes cars (Car(10)) and refuses ownerships without a key; it deletes what it is asked to.
    static func service() -> FakeTransport {
        FakeTransport { request, _ in
            switch (request.method, request.url) {
            case (.post, root + "Car"):
                return json(
                    #"{"d":{"__metadata":{"uri":"\#(root)Car(10)","etag":"W/\"1\""},"carID":10,"make":"BMW"}}"#,
                    status: 201)
            case (.post, root + "Person(1)/PersonCar"):
                let body = String(decoding: request.body ?? [], as: UTF8.self)
                guard body.contains("personCarID") else {
                    return json(
                        #"{"error":{"code":"400","message":{"lang":"en","value":"The key property 'personCarID' is required."}}}"#,
                        status: 400)
                }
                return json(#"{"d":{"__metadata":{"uri":"\#(root)PersonCar(21)"},"personCarID":21}}"#, status: 201)
            case (.delete, _):
                return TransportResponse(status: 204)
            default:
                return TransportResponse(status: 404)
            }
        }
    }

    func engine(_ transport: FakeTransport) throws -> SyncEngine {
        try SyncEngine.forTesting(
            root: Self.root, transport: transport, model: CarDealerModel.model, clock: SystemClock()
        ) { $0.writeRetry = .quickWrites }
    }

    /// Adds a BMW to Person(1)'s cars and waits for the ownership's refusal.
    func refusedOwnership(_ engine: SyncEngine) async throws -> OutboxEntry {
        engine.create(
            EntityCreation(
                entitySet: "Car", properties: [.init(name: "make", value: .string("BMW"))], addedTo: Self.cars))
        #expect(try await eventually { try engine.cache.outboxEntries().first?.state == .failed })
        return try #require(try engine.cache.outboxEntries().first)
    }

    @Test func a_refused_link_says_the_car_made_with_it_is_left_linked_to_nobody_and_dropping_it_deletes_the_car()
        async throws
    {
        let transport = Self.service()
        let engine = try engine(transport)
        // Given a car made on the service and its ownership refused
        let refused = try await refusedOwnership(engine)
        // Then the outbox says what is left on the service and what can be done
        let sentence = refused.lastError ?? ""
        #expect(sentence.contains("personCarID' is required"), "\(sentence)")
        #expect(sentence.contains("Car(10), made with it, is on the service linked to nobody"), "\(sentence)")
        #expect(!sentence.contains("~new"), "a temporary key was never asked for: \(sentence)")
        // When the ownership is dropped
        engine.resolve(outboxEntry: refused.id, .discard)
        // Then the car goes from the service too, and nothing waits
        #expect(try await eventually { await transport.requests.contains { $0.method == .delete } })
        #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
        let deleted = await transport.requests.filter { $0.method == .delete }.map(\.url)
        #expect(deleted == [Self.root + "Car(10)"])
    }

    @Test func a_refused_link_edited_with_its_key_is_sent_again_with_it_and_links_the_car() async throws {
        let transport = Self.service()
        let engine = try engine(transport)
        let refused = try await refusedOwnership(engine)
        // When the ownership is edited in the outbox with the key the service wants
        engine.resolve(outboxEntry: refused.id, .resend([.init(name: "personCarID", value: .int(21))]))
        // Then it is sent again with that key, binding the car made before, and settles
        #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
        let links = await transport.requests.filter { $0.url == Self.root + "Person(1)/PersonCar" }
        #expect(links.count == 2)
        let body = String(decoding: links.last?.body ?? [], as: UTF8.self)
        #expect(body.contains(#""personCarID":21"#) && body.contains("Car(10)"), "\(body)")
        #expect(await !transport.requests.contains { $0.method == .delete })
    }

    @Test func link_fields_typed_in_the_add_form_are_sent_with_the_link() async throws {
        let transport = Self.service()
        let engine = try engine(transport)
        // When a car is added with the ownership's key typed in the form
        engine.create(
            EntityCreation(
                entitySet: "Car", properties: [.init(name: "make", value: .string("BMW"))], addedTo: Self.cars,
                linkProperties: [.init(name: "personCarID", value: .int(21))]))
        // Then both are made, the ownership at once with its key
        #expect(
            try await eventually {
                let sent = await transport.count(of: Self.root + "Person(1)/PersonCar")
                return try sent > 0 && engine.cache.outboxEntries().isEmpty
            })
        let links = await transport.requests.filter { $0.url == Self.root + "Person(1)/PersonCar" }
        #expect(links.count == 1)
        let body = String(decoding: links.first?.body ?? [], as: UTF8.self)
        #expect(body.contains(#""personCarID":21"#), "\(body)")
    }

    /// A v2 service that takes `$batch` but no Content-ID references: the changeset that posts the ownership through
    /// the new car (`$1/PersonCar`) is refused as a unit, and sent again the two go one after the other.
    @Test func a_v2_service_that_refuses_content_id_references_gets_the_car_and_its_ownership_one_after_the_other()
        async throws
    {
        let transport = FakeTransport { request, _ in
            switch (request.method, request.url) {
            case (.post, Self.root + "$batch"):
                var text = "--b\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n"
                text += "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n\r\n"
                text += #"{"error":{"message":{"value":"Content-ID references are not supported"}}}"# + "\r\n--b--\r\n"
                return TransportResponse(
                    status: 202, headers: ["content-type": "multipart/mixed; boundary=b"], body: Array(text.utf8))
            case (.post, Self.root + "Car"):
                return json(
                    #"{"d":{"__metadata":{"uri":"\#(Self.root)Car(10)"},"carID":10,"make":"BMW"}}"#, status: 201)
            case (.post, Self.root + "Person(1)/PersonCar"):
                return json(#"{"d":{"__metadata":{"uri":"\#(Self.root)PersonCar(21)"},"personCarID":21}}"#, status: 201)
            default:
                return TransportResponse(status: 404)
            }
        }
        let engine = try engine(transport)
        // Given a car added among Person(1)'s cars, sent with its ownership in one changeset and refused as one
        engine.create(
            EntityCreation(
                entitySet: "Car", properties: [.init(name: "make", value: .string("BMW"))], addedTo: Self.cars))
        #expect(
            try await eventually {
                let entries = try engine.cache.outboxEntries()
                return entries.count == 2 && entries.allSatisfy { $0.state == .failed }
            })
        let batches = await transport.requests.filter { $0.url.hasSuffix("$batch") }
        let batch = try #require(batches.first)
        let sent = String(decoding: batch.body ?? [], as: UTF8.self)
        #expect(sent.contains("POST $1/PersonCar"), "\(sent)")
        // When both are sent again
        for entry in try engine.cache.outboxEntries() { engine.resolve(outboxEntry: entry.id, .retry) }
        // Then the car is made, then its ownership binding it, and nothing waits
        #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
        let links = await transport.requests.filter { $0.url == Self.root + "Person(1)/PersonCar" }
        #expect(links.count == 1)
        let body = String(decoding: links.first?.body ?? [], as: UTF8.self)
        #expect(body.contains("Car(10)"), "\(body)")
        #expect(await transport.count(of: Self.root + "Car") == 1)
    }
}
