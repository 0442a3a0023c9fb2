import Foundation
import GRDB
import Testing
import EntityCache

/// Found by the crash-safety test: a browser started while another process held the cache file
/// (the test's reader, recovering the WAL after a SIGKILL) failed at once with "database is locked".
@Suite struct CacheLockTests {
    @Test func opening_a_cache_another_process_holds_for_a_moment_waits_instead_of_failing() async throws {
        // Given a cache file that another connection holds an exclusive lock on
        let path = NSTemporaryDirectory() + "reliability-lock-\(UUID().uuidString).sqlite"
        _ = try CacheDatabase(path: path)
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: path, configuration: configuration)
        try holder.inDatabase { try $0.execute(sql: "BEGIN EXCLUSIVE") }
        let released = Task.detached {
            // The other process finishes its work a little later.
            try await Task.sleep(for: .milliseconds(300))
            try holder.inDatabase { try $0.execute(sql: "COMMIT") }
        }

        // When the browser opens it meanwhile, then it waits for the lock and opens
        let cache = try CacheDatabase(path: path)
        #expect(try cache.syncStatus().isOnline)
        try await released.value
    }
}
