import CarDealerTestSupport
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGKILL mid-ingest, again and again, on one cache (issue 7, "crash safety").
///
/// `RELIABILITY_KILLS` sets the number of kills (default 20).
@Suite(.tags(.endToEnd), .serialized, .enabled(if: CardealerProcess.isAvailable, "needs tmux and a built cardealer"))
struct CrashSafetyTests {
    static let kills = ProcessInfo.processInfo.environment["RELIABILITY_KILLS"].flatMap(Int.init) ?? 20

    @Test func killing_the_browser_mid_ingest_never_leaves_a_broken_or_falsely_complete_cache() async throws {
        let directory = NSTemporaryDirectory() + "reliability-kill-\(UUID().uuidString)"
        var random = WalkRandom(seed: 0x9111)
        var killedWhileIngesting = 0
        for round in 0..<Self.kills {
            // Even rounds start from an empty cache, so there is ingest to interrupt; odd rounds kill on top
            // of what the previous kill left behind.
            if round % 2 == 0 { try? FileManager.default.removeItem(atPath: directory + "/cache") }
            let browser = try CardealerProcess(columns: 100, rows: 40, directory: directory)
            defer { browser.kill() }
            try browser.launch(["--people", "1500", "--latency", "5:20"])
            let pid = try #require(try await browser.pid(timeout: .seconds(60)), "round \(round): no process")
            let drawn = try await browser.tmux.waitFor(timeout: .seconds(60)) { $0.contains("People") }
            #expect(drawn.matched, "round \(round): the browser never drew:\n\(drawn.screen)")
            let logged = try requestCount(browser.cacheFile)
            // Keys that make it fetch what earlier rounds did not: page to a random place, drill in twice.
            for _ in 0..<Int.random(in: 0...30, using: &random) { try browser.tmux.sendKeys("NPage") }
            for _ in 0..<Int.random(in: 0...15, using: &random) { try browser.tmux.sendKeys("Down") }
            try browser.tmux.sendKeys(Bool.random(using: &random) ? "Enter" : "End")
            try browser.tmux.sendKeys("Enter")

            // When it is killed after a random number of further requests (0 to 6)
            // At least one response must have landed, so the kill comes while ingest is under way.
            let wanted = logged + 1 + Int.random(in: 0...5, using: &random)
            let deadline = ContinuousClock.now + .seconds(20)
            while try requestCount(browser.cacheFile) < wanted, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...15, using: &random)))
            }
            if try requestCount(browser.cacheFile) > logged { killedWhileIngesting += 1 }
            let killed = kill(pid, SIGKILL) == 0
            let status = try await browser.exitStatus()
            let screen = try browser.tmux.capture()
            #expect(
                killed && status == 128 + Int(SIGKILL),
                "round \(round): exit status \(String(describing: status)) before the kill:\n\(screen)")

            // Then the cache opens, passes integrity_check, and no partly fetched list says it is complete
            let path = try #require(browser.cacheFile, "round \(round): no cache file")
            let file = try CacheFile(path: path)
            #expect(try file.integrityCheck() == "ok", "round \(round)")
            for (fact, count) in try file.orphans() { #expect(count == 0, "round \(round): \(count) \(fact)") }
            #expect(
                try file.completeButPartialLists() == [], "round \(round): a partly fetched list is marked complete")
            try file.queue.close()
        }
        #expect(
            killedWhileIngesting >= Self.kills / 4,
            "only \(killedWhileIngesting) kills came while requests were landing")
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Rows in the request log of the cache at `path` (0 before it exists).
    func requestCount(_ path: String?) throws -> Int {
        guard let path, FileManager.default.fileExists(atPath: path) else { return 0 }
        guard let file = try? CacheFile(path: path) else { return 0 }
        defer { try? file.queue.close() }
        return (try? file.queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM requestLog") }) ?? 0
    }
}
