import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// What waits in the outbox stays on the status line whatever else it says, and a write retried without end is said
/// to be failing, with the service's sentence (issue 32, items 8 and 9).
@MainActor
@Suite struct StatusLineOutboxTests {
    func frame(_ terminal: HeadlessTerminal) -> String { terminal.lastFrame.joined(separator: "\n") }

    @Test func offline_the_status_line_still_counts_what_is_pending() async throws {
        let (app, terminal, cache) = try ScreenSnapshotTests().seededApp(size: TerminalSize(columns: 120, rows: 12))
        // Given a change on its way and the service gone
        let now = ScreenSnapshotTests.fixedNow
        try await cache.write { session in
            _ = try session.enqueueUpdate(
                "Person(3)", changes: [.init(name: "firstName", value: .string("René"))], requestID: "r", at: now)
        }
        cache.publishSyncStatus(
            SyncStatus(
                isOnline: false, lastError: "The service could not be reached: connection refused.", lastErrorAt: now))
        // Then the status line says offline, why, and that one change waits
        let shown = try await eventually {
            _ = app.handle([])
            let status = terminal.lastFrame.last ?? ""
            return status.contains("offline") && status.contains("1 pending") && status.contains("connection refused")
        }
        #expect(shown, "\(frame(terminal))")
    }

    @Test func a_write_retried_five_times_without_end_is_failing_with_the_services_sentence() async throws {
        let (app, terminal, cache) = try ScreenSnapshotTests().seededApp(size: TerminalSize(columns: 120, rows: 12))
        // Given a change the service has answered 503 five times (and is still tried)
        let now = ScreenSnapshotTests.fixedNow
        try await cache.write { session in
            let id = try session.enqueueUpdate(
                "Person(3)", changes: [.init(name: "firstName", value: .string("René"))], requestID: "r", at: now)
            for attempt in 1...OutboxCounts.failingAfter {
                try session.markOutboxSending(id, at: now)
                try session.retryOutboxLater(
                    id, error: "The service answered HTTP 503: down for maintenance (try \(attempt)).",
                    due: now.addingTimeInterval(60))
            }
        }
        // Then the status line says it is failing, in the service's words, not merely pending
        let shown = try await eventually {
            _ = app.handle([])
            let status = terminal.lastFrame.last ?? ""
            return status.contains("1 failing (o): The service answered HTTP 503: down for maintenance (try 5).")
        }
        #expect(shown, "\(frame(terminal))")
        #expect(terminal.lastFrame.last?.contains("pending") == false, "\(frame(terminal))")
    }
}
