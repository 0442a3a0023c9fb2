import CarDealerTestSupport
import DemoServer
import EntityCache
import Foundation
import GRDB
import ODataCore
import ODataHTTP
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGKILL while the outbox flushes, again and again, on one cache and one service (issue 13, "the outbox").
///
/// Each round accepts two new people and two changes into the cache's outbox (as a screen saving them does: the
/// optimistic change and its outbox entry in one transaction), starts the built browser, which sends them, and
/// kills it at a random moment. After the last round one more start drains the outbox. `RELIABILITY_KILLS` sets
/// the number of kills (default 20).
@Suite(.tags(.endToEnd), .serialized, .enabled(if: CardealerProcess.isAvailable, "needs tmux and a built cardealer"))
struct OutboxCrashSafetyTests {
    static let kills = ProcessInfo.processInfo.environment["RELIABILITY_KILLS"].flatMap(Int.init) ?? 20

    /// Writes in the outbox (only those on the wire, when `sending`).
    func outboxCount(_ path: String, sending: Bool = false) throws -> Int {
        let file = try CacheFile(path: path)
        defer { try? file.queue.close() }
        let sql = "SELECT COUNT(*) FROM outbox" + (sending ? " WHERE state = 'sending'" : "")
        return try file.queue.read { try Int.fetchOne($0, sql: sql) } ?? 0
    }

    func people(_ filter: String, at root: String) async throws -> [ODataEntity] {
        let url = root + "Person?$filter=" + PercentEncoding.encodeQueryValue(filter)
        let response = try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: url))
        guard case .collection(let collection) = try PayloadDecoder(serviceRoot: root).decode(response.body)
        else { return [] }
        return collection.entities
    }

    /// Starts the browser on `root`'s people in a fresh pane; returns it and its pid once the list shows.
    func start(_ directory: String, root: String, round: Int) async throws -> (CardealerProcess, pid_t) {
        let browser = try CardealerProcess(columns: 100, rows: 30, directory: directory)
        try browser.launch(["browse", root + "Person"])
        let pid = try #require(try await browser.pid(timeout: .seconds(60)), "round \(round): no process")
        return (browser, pid)
    }

    @Test func killing_the_browser_while_it_sends_writes_loses_none_and_repeats_none() async throws {
        // Given the built-in service (some latency, so that writes are on the wire when the kill comes)
        let directory = NSTemporaryDirectory() + "reliability-outbox-kill-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(
                people: 30, dataPath: directory + "/service.sqlite", latencyMilliseconds: 10,
                latencyJitterMilliseconds: 60))
        let root = server.baseURL
        // and a browser that has shown its people once and made one change (the service's answer said it keeps
        // request ids), then quit
        let (first, _) = try await start(directory, root: root, round: -1)
        let shown = try await first.tmux.waitFor(timeout: .seconds(60)) {
            $0.contains("● online") && $0.contains(" of 30")
        }
        #expect(shown.matched, "the browser never showed the people:\n\(shown.screen)")
        try first.tmux.sendKeys("q")
        #expect(try await first.exitStatus() == 0)
        first.kill()
        let cachePath = try #require(first.cacheFile)

        var random = WalkRandom(seed: 0x0B0C)
        var created: [String] = []
        var lastName: [Int: String] = [:]
        var interrupted = 0
        for round in -1..<Self.kills {
            // When the outbox takes new writes (round -1: one change, sent in full, no kill)
            do {
                let cache = try CacheDatabase(path: cachePath)
                let names = round < 0 ? [] : (0..<2).map { "Kill\(round)x\($0)" }
                let changed = Array((1...30).shuffled(using: &random).prefix(round < 0 ? 1 : 2))
                let value = "Changed\(round)"
                created += names
                for id in changed { lastName[id] = value }
                try await cache.write { session in
                    for (index, name) in names.enumerated() {
                        _ = try session.enqueueCreate(
                            EntityKey.temporary(in: "Person"), entitySet: "Person",
                            properties: [
                                .init(name: "firstName", value: .string("Crash")),
                                .init(name: "lastName", value: .string(name)),
                                .init(name: "ssn", value: .string(String(format: "9%02d%06d", round, index))),
                            ], shownIn: nil, requestID: UUID().uuidString, at: Date())
                    }
                    for id in changed {
                        _ = try session.enqueueUpdate(
                            EntityKey(entitySet: "Person", value: .int(Int64(id))),
                            changes: [.init(name: "lastName", value: .string(value))], requestID: UUID().uuidString,
                            at: Date())
                    }
                }
            }
            let before = try outboxCount(cachePath)
            let (browser, pid) = try await start(directory, root: root, round: round)
            defer { browser.kill() }
            if round < 0 {
                #expect(try await eventually(seconds: 60) { try outboxCount(cachePath) == 0 })
                try browser.tmux.sendKeys("q")
                #expect(try await browser.exitStatus() == 0)
                continue
            }
            // and the browser is killed at a random moment once it has started sending them
            _ = try await eventually(seconds: 20) { try outboxCount(cachePath, sending: true) > 0 }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...60, using: &random)))
            #expect(kill(pid, SIGKILL) == 0)
            let status = try await browser.exitStatus()
            #expect(status == 128 + Int(SIGKILL), "round \(round): exit status \(String(describing: status))")
            let after = try outboxCount(cachePath)
            let onTheWire = try outboxCount(cachePath, sending: true)
            if after > 0 && (after < before || onTheWire > 0) { interrupted += 1 }
            // Then the cache is sound after every kill
            let file = try CacheFile(path: cachePath)
            #expect(try file.integrityCheck() == "ok", "round \(round)")
            try file.queue.close()
        }
        print("outbox kills: \(Self.kills), \(interrupted) with writes on the wire or part sent")
        #expect(interrupted >= Self.kills / 4, "only \(interrupted) kills came while the outbox was part sent")

        // When the browser starts once more and is left to finish
        let (last, _) = try await start(directory, root: root, round: Self.kills)
        defer { last.kill() }
        let drained = try await eventually(seconds: 90) { try outboxCount(cachePath) == 0 }
        let screen = try last.tmux.capture()
        #expect(drained, "the outbox never drained:\n\(screen)")
        try last.tmux.sendKeys("q")
        #expect(try await last.exitStatus() == 0)
        // (the writes of a round, queued together, went in $batches: the kills came during those too)
        #expect(
            try CacheDatabase(path: cachePath).requestLog(limit: 2_000).contains { $0.method.hasSuffix("in $batch") })

        // Then the service holds every accepted new person exactly once, and every person's last change
        let made = try await people("firstName eq 'Crash'", at: root)
        let names = made.compactMap { entity -> String? in
            if case .string(let name)? = entity["lastName"] { return name }
            return nil
        }
        #expect(names.count == created.count, "made \(names.count) people for \(created.count) accepted")
        #expect(Set(names) == Set(created), "missing \(Set(created).subtracting(names))")
        for (id, value) in lastName {
            let person = try await people("personID eq \(id)", at: root).first
            #expect(person?["lastName"] == .string(value), "Person(\(id))")
        }
        // And the cache agrees: each new person under the service's key, nothing left temporary or pending
        let cache = try CacheDatabase(path: cachePath)
        for entity in made {
            let key = try #require(entity.key)
            #expect(try cache.entity(key)?["lastName"] == entity["lastName"], "\(key)")
        }
        let file = try CacheFile(path: cachePath)
        defer { try? file.queue.close() }
        let leftovers = try await file.queue.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM entity WHERE instr(key, ?) > 0 OR pending > 0",
                arguments: [EntityKey.temporaryMarker])
        }
        #expect(leftovers == 0, "entities still temporary or pending")
        await server.stop()
    }
}
