import EntityCache
import Foundation
import GRDB
import Testing

/// Found by the crash-safety test: a browser started while another process held the cache file
/// (the test's reader, recovering the WAL after a SIGKILL) failed at once with "database is locked".
@Suite struct CacheLockTests {
    @Test func opening_a_cache_another_process_holds_for_a_moment_waits_instead_of_failing() throws {
        // Given a cache file that another connection holds an exclusive lock on
        let path = NSTemporaryDirectory() + "reliability-lock-\(UUID().uuidString).sqlite"
        _ = try CacheDatabase(path: path)
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: path, configuration: configuration)
        try holder.inDatabase { try $0.execute(sql: "BEGIN EXCLUSIVE") }
        // The other process finishes its work a little later: on a thread of its own, since opening the cache
        // below blocks the calling thread, and Swift's pool has only as many threads as cores.
        let released = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.3)
            try? holder.inDatabase { try $0.execute(sql: "COMMIT") }
            released.signal()
        }

        // When the browser opens it meanwhile, then it waits for the lock and opens
        let cache = try CacheDatabase(path: path)
        #expect(try cache.syncStatus().isOnline)
        released.wait()
    }
}
