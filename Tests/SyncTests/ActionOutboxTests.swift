import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Synchronization
import Testing

@testable import Sync

/// An action invoked on an entity goes through the outbox (issue 36): after the writes to it made before, once,
/// with its request id and the version it was invoked on; then the entity is read again. A stale version is a
/// sentence (nothing was done), a lost answer from a service that does not keep request ids waits for the user.
@Suite struct ActionOutboxTests {
    static let root = SyncEngineTests.root
    let date = Date(timeIntervalSince1970: 1_800_000_000)

    /// The CarDealer model with a v2 function import that repaints a car (`sap:action-for` the car: its key is a
    /// parameter of its own).
    static func model() throws -> ServiceModel {
        var model = CarDealerModel.model
        let car = try #require(model.entityType(ofSet: "Car")).qualifiedName
        var repaint = ServiceOperation(
            kind: .action, name: "Repaint",
            parameters: [
                .init(name: "carID", type: .primitive(.int32), isNullable: false),
                .init(name: "make", type: .primitive(.string), isNullable: false),
            ], method: .post, dialect: .v2)
        repaint.boundType = car
        model.operations = [repaint]
        return model
    }

    func engine(_ transport: FakeTransport) throws -> (SyncEngine, CacheDatabase) {
        let cache = try CacheDatabase()
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: "Car(1)", entitySet: "Car", type: nil,
                properties: [.init(name: "carID", value: .int(1)), .init(name: "make", value: .string("Ford"))],
                etag: "W/\"1\"", at: date, partial: false)
        }
        let engine = try SyncEngine.forTesting(
            root: Self.root, transport: transport, model: try Self.model(), cache: cache, clock: SystemClock()
        ) { $0.writeRetry = .quickWrites }
        return (engine, cache)
    }

    static let repaint = ActionInvocation(
        key: "Car(1)", operation: "Repaint", parameters: [.init(name: "make", value: .string("Blue"))],
        baseEtag: "W/\"1\"")

    static func car(make: String, etag: String) -> TransportResponse {
        json(
            #"{"d":{"__metadata":{"uri":"\#(root)Car(1)","etag":"W/\#\"\#(etag)\#\""},"carID":1,"make":"\#(make)"}}"#)
    }

    @Test func an_action_goes_once_after_the_changes_made_before_it_and_the_entity_is_read_again() async throws {
        // (the change is answered once the action is queued behind it, as a user's two keys a moment apart are:
        // a change settled before the action was even asked for is another story)
        let queued = Mutex(false)
        let transport = FakeTransport { request, _ in
            switch request.method {
            case .get: return Self.car(make: "Blue", etag: "3")
            default:
                for _ in 0..<1000 where !queued.withLock({ $0 }) { usleep(5_000) }
                return TransportResponse(status: 204, headers: ["etag": "W/\"2\""])
            }
        }
        let (engine, cache) = try engine(transport)
        // Given a change to the car, then the action on it
        engine.save(EntityChange(key: "Car(1)", changes: [.init(name: "make", value: .string("Red"))]))
        engine.invoke(Self.repaint)
        await engine.flushIntents()
        queued.withLock { $0 = true }
        // Then the change goes first, the action second, once, with its request id and the key as a parameter
        #expect(try await eventually { try cache.outboxEntries().isEmpty })
        #expect(try await eventually { await transport.requests.contains { $0.method == .get } })
        let writes = await transport.requests.filter { $0.method != .get }
        #expect(writes.count == 2, "\(writes.map(\.url))")
        let action = try #require(writes.last)
        #expect(action.method == .post && action.url == Self.root + "Repaint?carID=1&make='Blue'", "\(action.url)")
        #expect(action.headers["Repeatability-Request-ID"] != nil)
        // (against the version the change before it made, not the one it was invoked on: that change was mine)
        #expect(action.headers["If-Match"] == "W/\"2\"")
        // And the car is read again: the service's make and version are the cache's
        #expect(try await eventually { try cache.entity("Car(1)")?["make"] == .string("Blue") })
        #expect(try cache.entity("Car(1)")?.etag == "W/\"3\"")
    }

    @Test func a_stale_version_does_nothing_and_says_so_and_r_sends_it_against_the_version_read_since() async throws {
        let transport = FakeTransport { request, number in
            switch request.method {
            case .get: return Self.car(make: "Ford", etag: "5")
            default:
                return request.headers["If-Match"] == "W/\"5\""
                    ? TransportResponse(status: 204)
                    : json(#"{"error":{"code":"412","message":{"value":"Precondition failed"}}}"#, status: 412)
            }
        }
        let (engine, cache) = try engine(transport)
        engine.invoke(Self.repaint)
        #expect(try await eventually { try cache.outboxEntries().first?.state == .failed })
        let refused = try #require(try cache.outboxEntries().first)
        #expect(refused.lastError?.contains("nothing was done") == true, "\(refused.lastError ?? "")")
        // The car was read again meanwhile: sent again, it goes against the version the service has now
        #expect(try cache.outboxEntries().first?.baseEtag == "W/\"5\"")
        // When r sends it again
        engine.resolve(outboxEntry: refused.id, .retry)
        #expect(try await eventually { try cache.outboxEntries().isEmpty })
        let posts = await transport.requests.filter { $0.method == .post }
        #expect(posts.map { $0.headers["If-Match"] } == ["W/\"1\"", "W/\"5\""])
    }

    @Test func a_lost_answer_from_a_service_that_keeps_no_request_ids_waits_for_the_user() async throws {
        let transport = FakeTransport { request, _ in
            guard request.method != .get else { return Self.car(make: "Ford", etag: "1") }
            throw ODataError(kind: .transport, message: "the connection was reset", url: request.url)
        }
        let (engine, cache) = try engine(transport)
        engine.invoke(Self.repaint)
        #expect(try await eventually { try cache.outboxEntries().first?.state == .failed })
        let waiting = try #require(try cache.outboxEntries().first)
        #expect(waiting.lastError?.contains("may or may not have") == true, "\(waiting.lastError ?? "")")
        // Sent once, never again on its own
        try await Task.sleep(for: .milliseconds(200))
        #expect(await transport.requests.filter { $0.method == .post }.count == 1)
    }

    @Test func an_action_the_service_no_longer_offers_is_a_sentence() async throws {
        let transport = FakeTransport { _, _ in TransportResponse(status: 204) }
        let (engine, cache) = try engine(transport)
        engine.invoke(ActionInvocation(key: "Car(1)", operation: "Vanished", parameters: []))
        #expect(try await eventually { try cache.outboxEntries().first?.state == .failed })
        let entries = try cache.outboxEntries()
        #expect(entries.first?.lastError == "The service no longer offers Vanished.", "\(entries)")
        #expect(await transport.requests.filter { $0.method == .post }.isEmpty)
    }

    @Test func a_change_queued_after_an_action_goes_against_the_version_the_action_left() async throws {
        let transport = FakeTransport { request, _ in
            switch request.method {
            case .get: return Self.car(make: "Blue", etag: "3")
            case .post: return TransportResponse(status: 204)
            default:
                return request.headers["If-Match"] == "W/\"3\""
                    ? TransportResponse(status: 204, headers: ["etag": "W/\"4\""])
                    : json(#"{"error":{"code":"412","message":{"value":"Precondition failed"}}}"#, status: 412)
            }
        }
        let (engine, cache) = try engine(transport)
        // Given the action, then a change to the same car made before the action was answered
        engine.invoke(Self.repaint)
        engine.save(EntityChange(key: "Car(1)", changes: [.init(name: "model", value: .string("Niva"))]))
        await engine.flushIntents()
        // Then both land: the change against the version the action left, read again before it went
        #expect(try await eventually { try cache.outboxEntries().isEmpty })
        let methods = await transport.requests.map(\.method)
        #expect(methods.prefix(3) == [.post, .get, .merge], "\(methods)")
        // And the car shows the service's make and my model
        #expect(try cache.entity("Car(1)")?["make"] == .string("Blue"))
        #expect(try cache.entity("Car(1)")?["model"] == .string("Niva"))
    }

    @Test func a_stale_version_after_an_unanswered_attempt_says_it_may_have_run_and_after_a_refusal_it_did_not()
        async throws
    {
        // A service that lost its first answer (it may have run it), then refuses the version it was sent against
        let transport = FakeTransport { request, number in
            switch request.method {
            case .get: return Self.car(make: "Blue", etag: "2")
            default:
                if number == 1 {
                    throw ODataError(kind: .transport, message: "the connection was reset", url: request.url)
                }
                return json(#"{"error":{"code":"412","message":{"value":"Precondition failed"}}}"#, status: 412)
            }
        }
        let (engine, cache) = try engine(transport)
        engine.invoke(Self.repaint)
        #expect(try await eventually { try cache.outboxEntries().first?.state == .failed })
        let waiting = try #require(try cache.outboxEntries().first)
        #expect(waiting.outcomeUnknown && waiting.lastError?.contains("may or may not have") == true)
        // When r sends it again and the service refuses its version
        engine.resolve(outboxEntry: waiting.id, .retry)
        #expect(
            try await eventually {
                try cache.outboxEntries().first?.lastError?.contains("may have run it: look on the service") == true
            })
        // A refusal after an answer that said "not now" is no sign that it ran
        let busy = FakeTransport { request, number in
            switch request.method {
            case .get: return Self.car(make: "Ford", etag: "2")
            default:
                return number == 1
                    ? TransportResponse(status: 503)
                    : json(#"{"error":{"code":"412","message":{"value":"Precondition failed"}}}"#, status: 412)
            }
        }
        let (other, otherCache) = try self.engine(busy)
        other.invoke(Self.repaint)
        #expect(try await eventually { try otherCache.outboxEntries().first?.state == .failed })
        let refused = try #require(try otherCache.outboxEntries().first)
        #expect(refused.lastError?.contains("nothing was done") == true, "\(refused.lastError ?? "")")
        // And the car shows the service's version
        #expect(try otherCache.entity("Car(1)")?.etag == "W/\"2\"")
    }
}
