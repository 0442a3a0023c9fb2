import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Testing

@testable import Sync

/// Two browsers for the same service and user share one cache file (two terminals on the default demo): each
/// queued write is sent by one of them only, even to a service that does not keep request ids (issue 32).
@Suite struct SharedCacheOutboxTests {
    @Test func two_engines_flushing_one_cache_file_send_every_write_once() async throws {
        // Given a cache file holding one queued change to each of 24 cars
        let path = NSTemporaryDirectory() + "shared-outbox-\(UUID().uuidString).sqlite"
        defer { _ = try? CacheDatabase.removeFiles(at: path) }
        let first = try CacheDatabase(path: path)
        let date = Date()
        try await first.write { session in
            for car in 1...24 {
                try session.upsertEntity(
                    key: "Car(\(car))", entitySet: "Car", type: nil,
                    properties: [
                        .init(name: "carID", value: .int(Int64(car))), .init(name: "make", value: .string("A")),
                    ],
                    etag: nil, at: date, partial: false)
                _ = try session.enqueueUpdate(
                    "Car(\(car))", changes: [.init(name: "make", value: .string("B\(car)"))], requestID: "write-\(car)",
                    at: date)
            }
        }
        // And a service that applies every MERGE it gets, a little slowly, says nothing of request ids and takes
        // no $batch
        let server = try ScriptedHTTPServer { exchange in
            if exchange.target.hasSuffix("$batch") {
                // (This server reads no bodies: the connection closes, so the batch's is not read as a request.)
                return .bytes(
                    ScriptedHTTPServer.response(status: "501 Not Implemented", headers: [], body: [], close: true),
                    close: true)
            }
            Thread.sleep(forTimeInterval: 0.02)
            return .bytes(ScriptedHTTPServer.response(status: "204 No Content", headers: [], body: []))
        }
        defer { server.stop() }
        // When two engines, each with its own connection to the file, flush at the same moment
        let second = try CacheDatabase(path: path)
        let engines = [first, second].map { cache in
            SyncEngine(
                configuration: SyncEngine.Configuration(serviceRoot: server.url("/svc/")), cache: cache,
                transport: HTTPClientTransport(timeout: 5), model: CarDealerModel.model)
        }
        await withTaskGroup(of: Void.self) { group in
            for engine in engines { group.addTask { await engine.flushOutbox() } }
        }
        let drained = try await eventually(seconds: 20) { try first.outboxEntries().isEmpty }
        #expect(drained)
        // Then the service got each write once
        let sent = server.exchanges.filter { !$0.target.hasSuffix("$batch") }.compactMap {
            $0.header("Repeatability-Request-ID")
        }
        #expect(sent.count == 24, "\(sent.sorted())")
        #expect(Set(sent) == Set((1...24).map { "write-\($0)" }))
        for engine in engines { await engine.waitUntilIdle() }
    }
}
