import CarDealerTestSupport
import Foundation
import GRDB
import ODataCore
import Testing

@testable import EntityCache

/// A queued write is claimed by the one browser that sends it (two browsers can share one cache file).
@Suite(.tags(.endToEnd)) struct OutboxClaimTests {
    let date = Date(timeIntervalSince1970: 1_800_000_000)

    /// A cache file with one queued change to Car(1), and a second connection to the same file.
    func sharedCache() throws -> (CacheDatabase, CacheDatabase, String) {
        let path = NSTemporaryDirectory() + "outbox-claim-\(UUID().uuidString).sqlite"
        let cache = try CacheDatabase(path: path)
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: "Car(1)", entitySet: "Car", type: nil, properties: [.init(name: "carID", value: .int(1))],
                etag: nil, at: date, partial: false)
            _ = try session.enqueueUpdate(
                "Car(1)", changes: [.init(name: "make", value: .string("B"))], requestID: "w", at: date)
        }
        return (cache, try CacheDatabase(path: path), path)
    }

    @Test func a_claimed_write_is_not_given_to_another_claimant_until_its_attempt_ends() throws {
        let (cache, other, path) = try sharedCache()
        defer { _ = try? CacheDatabase.removeFiles(at: path) }
        // When one claimant takes the due write
        #expect(
            try cache.writeBlocking { try $0.dueOutboxEntries(at: date, limit: 8, claimant: cache.claimant) }.count == 1
        )
        // Then the other gets nothing, even asking again
        #expect(
            try other.writeBlocking { try $0.dueOutboxEntries(at: date, limit: 8, claimant: other.claimant) }.isEmpty)
        // When the attempt ends (a retry later, due now), then the other may take it
        let id = try #require(try cache.outboxEntries().first?.id)
        try cache.writeBlocking { try $0.retryOutboxLater(id, error: "busy", due: date) }
        #expect(
            try other.writeBlocking { try $0.dueOutboxEntries(at: date, limit: 8, claimant: other.claimant) }.count == 1
        )
        // And a claim whose lease has run out is taken over too
        let later = date.addingTimeInterval(121)
        #expect(
            try cache.writeBlocking { try $0.dueOutboxEntries(at: later, limit: 8, claimant: cache.claimant) }.count
                == 1)
    }

    @Test func the_claim_of_a_process_that_has_ended_is_let_go_at_once() throws {
        let (cache, other, path) = try sharedCache()
        defer { _ = try? CacheDatabase.removeFiles(at: path) }
        // Given the write claimed, with a long lease, by a process that has since ended (killed mid-send)
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        try other.writer.write { db in
            try db.execute(
                sql: "UPDATE outbox SET claimedBy = ?, claimedUntil = ?",
                arguments: ["\(ended.processIdentifier):gone", date.addingTimeInterval(600).timeIntervalSince1970])
        }
        // When this process looks for due writes, then the write is its own to send
        #expect(
            try cache.writeBlocking { try $0.dueOutboxEntries(at: date, limit: 8, claimant: cache.claimant) }.count == 1
        )
        // And while it holds it, another live claimant does not get it
        #expect(
            try other.writeBlocking { try $0.dueOutboxEntries(at: date, limit: 8, claimant: other.claimant) }.isEmpty)
    }

    @Test func an_update_is_queued_against_the_version_the_screen_made_it_on() throws {
        let cache = try CacheDatabase()
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: "Car(1)", entitySet: "Car", type: nil, properties: [.init(name: "carID", value: .int(1))],
                etag: "W/\"2\"", at: date, partial: false)
            _ = try session.enqueueUpdate(
                "Car(1)", changes: [.init(name: "make", value: .string("B"))], baseEtag: "W/\"1\"", requestID: "w",
                at: date)
        }
        #expect(try cache.outboxEntries().first?.baseEtag == "W/\"1\"")
    }
}
