import CarDealerTestSupport
import Foundation
import GRDB
import Testing

@testable import DemoServer

/// A service that shares its process with people typing (the built-in demo, serve-ssh) reads below them.
@Suite struct ReadPriorityTests {
    @Test(arguments: [false, true])
    func reads_in_background_run_on_threads_niced_below_the_rest(inBackground: Bool) async throws {
        // Given the data opened with reads in the background, or not
        let directory = NSTemporaryDirectory() + "demo-priority-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try DataStore.open(path: directory + "/demo.sqlite", people: 5, inBackground: inBackground)

        // When an answer's read runs (as the service's handlers read: asynchronously, on the pool's queues)
        let nice = try await store.reader.read { _ in threadNice() }

        // Then, on Linux, it ran on a thread at nice 10 only when asked to
        #if os(Linux)
        if inBackground {
            #expect(nice == 10)
        } else {
            #expect(nice.map { $0 < 10 } == true, "\(String(describing: nice))")
        }
        #endif
        try store.reader.close()
    }
}
