import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import Sync

/// The fetcher's status changes with every request that starts or ends: it reaches the screens without a
/// transaction of its own (issue 34), which would take the writer from ingest and tell every cache reader that the
/// cache changed.
@Suite struct TransientStatusTests {
    @Test func a_request_on_its_way_is_on_the_status_without_a_transaction() async throws {
        // Given a service whose answers are held
        let transport = FakeTransport { _, _ in json(SyncEngineTests.peoplePage(0..<3, count: 3)) }
        await transport.hold()
        let engine = try SyncEngineTests().makeEngine(transport)
        await engine.flushIntents()
        // (the outbox's look at what is due when the engine starts, done)
        #expect(try await eventually { await engine.outbox.isFlushing == false })
        let before = engine.cache.changeCount
        // When a screen's list goes out
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<3, screen: ScreenID(1))
        #expect(try await eventually { await transport.waitingCount == 1 })
        // Then the status says so, and nothing was written
        #expect(try await eventually { try engine.cache.syncStatus().inFlight == 1 })
        #expect(engine.cache.changeCount == before)
        // And when it ends, the status says that too, with the rows in the cache
        await transport.release()
        await engine.waitUntilIdle()
        let status = try engine.cache.syncStatus()
        #expect(status.inFlight == 0 && status.queued == 0 && status.lastSuccessAt != nil)
        #expect(try engine.cache.listWindow(ListRequest(entitySet: "Person").key, range: 0..<3).rows.count == 3)
    }

    @MainActor
    @Test func screens_observe_each_change_of_the_status_once_and_a_new_cache_starts_online() async throws {
        let cache = try CacheDatabase()
        #expect(try cache.syncStatus() == SyncStatus())
        var seen: [SyncStatus] = []
        let observation = cache.observeSyncStatus { seen.append($0) }
        #expect(try await eventually { seen == [SyncStatus()] })
        let offline = SyncStatus(isOnline: false, lastError: "The service could not be reached.")
        cache.publishSyncStatus(offline)
        cache.publishSyncStatus(offline)
        #expect(try await eventually { seen.count == 2 })
        #expect(seen.last == offline)
        // (published, not written)
        #expect(cache.changeCount == 0)
        observation.cancel()
        cache.publishSyncStatus(SyncStatus(inFlight: 1))
        // An observation cancelled before its first value gets none
        var late: [SyncStatus] = []
        cache.observeSyncStatus { late.append($0) }.cancel()
        try await Task.sleep(for: .milliseconds(50))
        #expect(seen.count == 2 && late.isEmpty)
    }
}
