import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Synchronization
import Testing

@testable import Sync

/// What the status line says of the service follows its answers, reads' and writes' alike, and a wait left from
/// before a restart is not waited out once the service answers (issue 32, item 7).
@Suite struct ReachabilityTests {
    static let root = SyncEngineTests.root
    static let cars = ListRequest(entitySet: "Car")

    /// A cache holding Car(1) with a change queued by an earlier run, due only in five minutes (its backoff);
    /// `live`: the wait was set by a process still running (another browser on the cache), which a start leaves.
    func cacheWithAWaitingWrite(live: Bool = false) async throws -> CacheDatabase {
        let cache = try CacheDatabase()
        let now = Date()
        try await cache.write { session in
            try session.upsertEntity(
                key: "Car(1)", entitySet: "Car", type: nil,
                properties: [.init(name: "carID", value: .int(1)), .init(name: "model", value: .string("Focus"))],
                etag: nil, at: now, partial: false)
            let id = try session.enqueueUpdate(
                "Car(1)", changes: [.init(name: "model", value: .string("Ka"))], requestID: "queued-before", at: now)
            try session.markOutboxSending(id, at: now)
            if live { _ = try session.dueOutboxEntries(at: now, limit: 1, claimant: .thisProcess) }
            try session.retryOutboxLater(
                id, error: "The service could not be reached: connection refused.", due: now.addingTimeInterval(300))
        }
        return cache
    }

    func engine(_ transport: FakeTransport, cache: CacheDatabase, probe: Double = 5) throws -> SyncEngine {
        try SyncEngine.forTesting(
            root: Self.root, transport: transport, model: CarDealerModel.model, cache: cache, clock: SystemClock()
        ) {
            $0.offlineProbeInterval = probe
            $0.retry = RetryPolicy(maxAttempts: 1)
        }
    }

    @Test func a_write_waiting_out_a_backoff_goes_at_the_services_first_answer() async throws {
        // (a wait a live process set: starting does not end it, the service's first answer does)
        let cache = try await cacheWithAWaitingWrite(live: true)
        let transport = FakeTransport { request, _ in
            request.method == .get
                ? json(#"{"d":{"results":[{"__metadata":{"uri":"\#(Self.root)Car(1)"},"carID":1,"model":"Focus"}]}}"#)
                : TransportResponse(status: 204)
        }
        // When a fetcher starts on it and a screen's list is read (the service answers)
        let engine = try engine(transport, cache: cache)
        await engine.flushIntents()
        #expect(await transport.requests.isEmpty)  // (starting sent nothing: the wait stands)
        engine.screenDidShow(.list(Self.cars), visible: 0..<20, screen: ScreenID(1))
        // Then the change goes at once, not in five minutes, and settles
        #expect(try await eventually(seconds: 10) { try cache.outboxEntries().isEmpty })
        let writes = await transport.requests.filter { $0.method != .get }
        #expect(writes.map { $0.headers["Repeatability-Request-ID"] } == ["queued-before"])
    }

    @Test func a_writes_answer_ends_offline_and_the_last_error_on_the_status_line() async throws {
        let cache = try await cacheWithAWaitingWrite()
        // Given a fetcher offline after its first read found no service (its next probe a minute away)
        // (the waiting write goes first, at start: it is the first read that finds no service)
        let reads = Mutex(0)
        let transport = FakeTransport { request, _ in
            if request.method == .get,
                reads.withLock({ count in
                    count += 1
                    return count
                }) == 1
            {
                throw ODataError(kind: .transport, message: "the connection was refused", url: request.url)
            }
            return request.method == .get ? json(#"{"d":{"results":[]}}"#) : TransportResponse(status: 204)
        }
        // (one try per read: the refused one is not tried again before the fetcher goes offline)
        let engine = try engine(transport, cache: cache, probe: 60)
        #expect(try await eventually { try cache.outboxEntries().isEmpty })
        engine.screenDidShow(.list(Self.cars), visible: 0..<20, screen: ScreenID(1))
        #expect(try await eventually { try !cache.syncStatus().isOnline })
        // When a change made meanwhile to another car is sent, and the service answers it
        let now = Date()
        try await cache.write {
            try $0.upsertEntity(
                key: "Car(2)", entitySet: "Car", type: nil, properties: [.init(name: "carID", value: .int(2))],
                etag: nil, at: now, partial: false)
        }
        engine.save(EntityChange(key: "Car(2)", changes: [.init(name: "make", value: .string("Ford"))]))
        // Then the status line says online, with no error left over from the refused read
        #expect(
            try await eventually {
                let status = try cache.syncStatus()
                guard status.isOnline, let success = status.lastSuccessAt, let failure = status.lastErrorAt else {
                    return false
                }
                return success >= failure
            })
    }
}
