import CarDealerTestSupport
import DemoServer
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Testing

@testable import Sync

/// Writes whose acknowledgement never arrives (the service made them; the answer was lost on the way back),
/// through the real stack: the built-in service behind the fault proxy, the HTTP transport, a SQLite cache.
@Suite(.serialized)
struct LostAnswerTests {
    func entities(_ path: String, at root: String) async throws -> [ODataEntity] {
        let response = try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: root + path))
        guard case .collection(let collection) = try PayloadDecoder(serviceRoot: root).decode(response.body)
        else { return [] }
        return collection.entities
    }

    @Test func creates_and_changes_whose_answers_are_lost_are_made_exactly_once() async throws {
        // Given the built-in service behind a proxy, and a cache holding its first 20 people
        let directory = try BuiltProducts.temporaryDirectory("cardealer-lost-answers")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 20, dataPath: directory + "/demo.sqlite"))
        let proxy = try FaultProxy(upstreamPort: server.port)
        defer { proxy.stop() }
        let root = "http://127.0.0.1:\(proxy.port)/CarDealer.svc/"
        let cache = try CacheDatabase(path: directory + "/cache.sqlite")
        let engine = try SyncEngine.forTesting(
            root: root, transport: HTTPClientTransport(timeout: 5), model: CarDealerModel.model, cache: cache,
            clock: SystemClock()
        ) {
            $0.writeRetry = RetryPolicy(maxAttempts: .max, baseDelay: 0.01, maxDelay: 0.1, budget: .infinity)
            // (small batches: many exchanges, each of whose answers may be lost)
            $0.writeBatchSize = 4
        }
        _ = await engine.fetch(
            root + "Person?$top=20",
            target: .listPage(ListKey(canonical: "Person"), entitySet: "Person", offset: 0, requestedTop: 20))
        #expect(try cache.entity("Person(1)") != nil)
        // and a first change that went through, whose answer said the service keeps request ids
        engine.save(EntityChange(key: "Person(1)", changes: [.init(name: "firstName", value: .string("First"))]))
        await engine.waitUntilIdle()
        #expect(try await eventually { try cache.outboxEntries().isEmpty })

        // When every answer is lost until two were, then half of them, while 8 people are made and 8 others changed
        proxy.setFaultRate(1, faults: [.loseAnswer])
        for index in 0..<8 {
            engine.create(
                EntityCreation(
                    entitySet: "Person",
                    properties: [
                        .init(name: "firstName", value: .string("Lost")),
                        .init(name: "lastName", value: .string("Answer-\(index)")),
                        .init(name: "ssn", value: .string("99900\(index)")),
                    ], addedTo: nil))
            engine.save(
                EntityChange(
                    key: EntityKey(entitySet: "Person", value: .int(Int64(index + 2))),
                    changes: [.init(name: "firstName", value: .string("Changed-\(index)"))]))
        }

        await engine.waitUntilIdle()
        #expect(try await eventually(seconds: 30) { (proxy.injected[.loseAnswer] ?? 0) >= 2 })
        proxy.setFaultRate(0.5, faults: [.loseAnswer])

        // Then every write settles, each once, though some answers were lost
        let settled = try await eventually(seconds: 60) { try cache.outboxEntries().isEmpty }
        let left = try cache.outboxEntries().map { "\($0.kind) \($0.entityKey) \($0.state)" }
        #expect(settled, "still queued: \(left)")
        let lost = proxy.injected[.loseAnswer] ?? 0
        #expect(lost > 0, "no answer was lost: the test proved nothing")
        // (the writes queued together went in $batches, whose answers were lost as well: issue 34)
        #expect(try cache.requestLog(limit: 2_000).contains { $0.method.hasSuffix("in $batch") })
        print("lost answers: \(lost)")
        proxy.setFaultRate(0)
        let made = try await entities("Person?$filter=firstName eq 'Lost'", at: server.baseURL)
        #expect(made.count == 8, "\(made.map { $0["lastName"] })")
        #expect(Set(made.compactMap { $0["lastName"] }).count == 8)
        for index in 0..<8 {
            let person = try await entities("Person?$filter=personID eq \(index + 2)", at: server.baseURL).first
            #expect(person?["firstName"] == .string("Changed-\(index)"))
        }
        // And the cache agrees: the new people under the service's keys, none left under a temporary one
        for entity in made {
            let key = try #require(entity.key)
            #expect(try cache.entity(key)?["lastName"] == entity["lastName"])
        }
        await server.stop()
    }
}
