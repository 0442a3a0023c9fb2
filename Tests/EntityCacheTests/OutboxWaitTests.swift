import Foundation
import ODataCore
import Testing

@testable import EntityCache

/// A write's wait for a retry belongs to the process that set it: a browser that starts makes due the waits of
/// processes that have ended, and leaves those of a live one (two browsers on one cache) alone.
@Suite struct OutboxWaitTests {
    @Test func waits_of_ended_processes_end_and_those_of_live_ones_stand() throws {
        let cache = try CacheDatabase()
        let now = Date()
        let ids = try cache.writeBlocking { session in
            try (1...3).map { car -> Int64 in
                let key = EntityKey(entitySet: "Car", value: .int(Int64(car)))
                try session.upsertEntity(
                    key: key, entitySet: "Car", type: nil, properties: [.init(name: "carID", value: .int(Int64(car)))],
                    etag: nil, at: now, partial: false)
                return try session.enqueueUpdate(
                    key, changes: [.init(name: "model", value: .string("M\(car)"))], requestID: "r\(car)", at: now)
            }
        }
        // Given three writes told to wait a minute: by this (live) process, by one that has ended, by nobody known
        let due = try cache.writeBlocking { try $0.dueOutboxEntries(at: now, limit: 10, claimant: .thisProcess) }
        #expect(due.count == 3)
        try cache.writeBlocking { session in
            for id in ids { try session.retryOutboxLater(id, error: "busy", due: now.addingTimeInterval(60)) }
            try session.db.execute(
                sql: "UPDATE outbox SET waitSetBy = '2147483646:ended' WHERE id = ?", arguments: [ids[1]])
            try session.db.execute(sql: "UPDATE outbox SET waitSetBy = NULL WHERE id = ?", arguments: [ids[2]])
        }
        #expect(try cache.outboxEntries().first { $0.id == ids[0] }?.nextAttemptAt != nil)
        // When a browser starts on the cache
        try cache.writeBlocking { try $0.makeWaitsOfEndedProcessesDue() }
        // Then the live process's wait stands, the others are due now
        let entries = try cache.outboxEntries()
        #expect(entries.first { $0.id == ids[0] }?.nextAttemptAt != nil)
        #expect(entries.first { $0.id == ids[1] }?.nextAttemptAt == nil)
        #expect(entries.first { $0.id == ids[2] }?.nextAttemptAt == nil)
    }
}
