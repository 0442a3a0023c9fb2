import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Testing

@testable import Sync

/// A service whose answers to `$batch` do not fit what was sent (issue 34, "faults and bad input"): each is a
/// sentence, nothing is lost, and nothing is sent again blindly — the changes stay queued with the reason (a change
/// sent again meets its ETag), a create waits for the user (it may have been made).
@Suite struct HostileBatchTests {
    static let multipart = "Content-Type: multipart/mixed; boundary=x"

    /// Answers that cannot be matched to a batch of three changesets.
    static let answers: [(name: String, headers: [String], body: String, expected: String)] = [
        ("a wrong boundary", [multipart], "--y\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n--y--", "no part begins"),
        ("no boundary", ["Content-Type: multipart/mixed"], "--x\r\n--x--", "with a boundary"),
        (
            "fewer parts than changesets", [multipart],
            "--x\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n\r\n--x--\r\n",
            "1 answers for 3"
        ),
        (
            "a changeset nested ever deeper", [multipart],
            (0..<200).map { "--x\r\nContent-Type: multipart/mixed; boundary=n\($0)\r\n\r\n--n\($0)\r\n" }.joined()
                + "--x--", "answers for 3"
        ),
        (
            "a Content-ID that names nothing", [multipart],
            (0..<3).map {
                "--x\r\nContent-Type: multipart/mixed; boundary=c\($0)\r\n\r\n--c\($0)\r\nContent-Type: application/http\r\n"
                    + "Content-ID: 9\($0)\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n\r\n--c\($0)--\r\n"
            }.joined() + "--x--", "names Content-ID 90"
        ),
        ("a 204 with no answers in it", [], "", "holds no answers"),
    ]

    func engine(
        answering head: [String], body: String, status: String = "202 Accepted"
    ) throws -> (
        SyncEngine, CacheDatabase, ScriptedHTTPServer
    ) {
        let server = try ScriptedHTTPServer { exchange in
            guard exchange.target.hasSuffix("$batch") else {
                return .bytes(ScriptedHTTPServer.response(status: "200 OK", headers: [], body: []))
            }
            // (the server reads no bodies: the connection closes after each batch)
            return .bytes(
                ScriptedHTTPServer.response(
                    status: body.isEmpty ? "204 No Content" : status, headers: head, body: Array(body.utf8),
                    close: true), close: true)
        }
        let cache = try CacheDatabase()
        let engine = try SyncEngine.forTesting(
            root: server.url("/svc/"), transport: HTTPClientTransport(timeout: 5), model: CarDealerModel.model,
            cache: cache, clock: SystemClock()
        ) { $0.writeRetry = RetryPolicy(maxAttempts: .max, baseDelay: 30, maxDelay: 60, budget: .infinity) }
        return (engine, cache, server)
    }

    /// Three cars cached, a change to each queued together.
    func queueChanges(_ cache: CacheDatabase) async throws {
        try await cache.write { session in
            for car in 1...3 {
                try session.upsertEntity(
                    key: "Car(\(car))", entitySet: "Car", type: nil,
                    properties: [
                        .init(name: "carID", value: .int(Int64(car))), .init(name: "model", value: .string("A")),
                    ],
                    etag: "W/\"\(car)\"", at: Date(), partial: false)
                _ = try session.enqueueUpdate(
                    "Car(\(car))", changes: [.init(name: "model", value: .string("Mine \(car)"))],
                    requestID: "change-\(car)", at: Date())
            }
        }
    }

    @Test(arguments: answers.indices)
    func an_answer_that_does_not_fit_keeps_every_change_queued_with_the_reason(index: Int) async throws {
        let answer = Self.answers[index]
        let (engine, cache, server) = try engine(answering: answer.headers, body: answer.body)
        defer { server.stop() }
        try await queueChanges(cache)
        // When the outbox flushes them in one batch and the answer does not fit
        await engine.flushOutbox()
        let tried = try await eventually(seconds: 20) {
            try cache.outboxEntries().allSatisfy { $0.attempts == 1 && $0.state == .pending && $0.lastError != nil }
        }
        // Then the three changes are still queued (to be sent again after their wait), each with the reason
        let entries = try cache.outboxEntries()
        #expect(tried, "\(answer.name): \(entries.map { "\($0.state) \($0.lastError ?? "")" })")
        #expect(entries.count == 3)
        #expect(
            entries.allSatisfy { $0.lastError?.contains(answer.expected) == true },
            "\(answer.name): \(entries.map { $0.lastError ?? "" })")
        // And the cache still shows them (nothing rolled back), the service counts as there, and only one batch went
        #expect(await engine.online)
        for car in 1...3 { #expect(try cache.entity(EntityKey("Car(\(car))"))?["model"] == .string("Mine \(car)")) }
        #expect(server.exchanges.filter { $0.target.hasSuffix("$batch") }.count == 1, "\(answer.name)")
        await engine.waitUntilIdle()
    }

    @Test func creates_whose_batch_answer_is_unreadable_wait_for_the_user_and_are_not_sent_again() async throws {
        let (engine, cache, server) = try engine(answering: [Self.multipart], body: "garbage")
        defer { server.stop() }
        try await cache.write { session in
            for index in 0..<3 {
                _ = try session.enqueueCreate(
                    EntityKey.temporary(in: "Car"), entitySet: "Car",
                    properties: [.init(name: "model", value: .string("New \(index)"))], shownIn: nil,
                    requestID: "create-\(index)", at: Date())
            }
        }
        await engine.flushOutbox()
        // Then each waits for the user, saying the service may or may not have made it
        let waiting = try await eventually(seconds: 20) {
            try cache.outboxEntries().allSatisfy { $0.state == .failed }
        }
        let entries = try cache.outboxEntries()
        #expect(waiting && entries.count == 3, "\(entries.map { "\($0.state) \($0.lastError ?? "")" })")
        #expect(entries.allSatisfy { $0.lastError?.contains("may or may not have made it") == true })
        // And no second batch went out by itself
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.exchanges.filter { $0.target.hasSuffix("$batch") }.count == 1)
        await engine.waitUntilIdle()
    }
}
