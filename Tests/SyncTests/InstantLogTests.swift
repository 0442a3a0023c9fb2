import CarDealerTestSupport
import EntityCache
import Foundation
import Testing

@testable import Sync

/// The log lines of outcomes that sent nothing are written together while the writer is busy, not one write each.
@Suite struct InstantLogTests {
    @Test func lines_added_while_the_writer_is_busy_go_in_one_write_and_all_land() async throws {
        // Given a cache whose writer is busy for 200 ms
        let path = NSTemporaryDirectory() + "instant-log-\(UUID().uuidString)/cache.sqlite"
        defer { _ = try? CacheDatabase.removeFiles(at: path) }
        let cache = try CacheDatabase(path: path)
        let log = InstantLog(cache: cache)
        let before = cache.changeCount
        cache.enqueueWrite { _ in Thread.sleep(forTimeInterval: 0.2) }
        // When 50 lines are added meanwhile
        for index in 0..<50 {
            log.add(
                RequestLogEntry(
                    url: "http://h/s/Person(\(index))", status: nil, bytes: 0, duration: 0, outcome: .coalesced,
                    startedAt: Date(), attempts: 0))
        }
        await cache.writesSettled()
        // Then every line is in the log, written in one transaction after the busy one (one each would take four,
        // sixteen to a transaction)
        #expect(try cache.requestLog(limit: 100).count == 50)
        #expect(cache.changeCount - before <= 2, "\(cache.changeCount - before) transactions")
        // And a line added once the writer is idle again is written too
        log.add(
            RequestLogEntry(
                url: "http://h/s/Car(1)", status: nil, bytes: 0, duration: 0, outcome: .cancelled, startedAt: Date(),
                attempts: 0))
        await cache.writesSettled()
        #expect(try cache.requestLog(limit: 100).count == 51)
    }
}
