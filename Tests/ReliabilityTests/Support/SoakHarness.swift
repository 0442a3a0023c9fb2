import Browser
import DemoServer
import EntityCache
import Foundation
import GRDB
import ODataCore
import ODataHTTP
import Session
import Sync
import Synchronization
import Terminal
import Testing

/// The whole browser without a terminal: the built-in service, a fault proxy in front of it, the real
/// fetcher and transport writing a real SQLite file, and the screens on a headless terminal.
@MainActor
final class SoakHarness {
    let server: RunningDemoServer
    let proxy: FaultProxy
    let cachePath: String
    let cache: CacheDatabase
    let engine: SyncEngine
    let terminal: HeadlessTerminal
    let app: BrowserApp
    /// The last row of every frame drawn (the status line).
    private(set) var statusLines: Set<String> = []

    /// Starts everything; `people` sizes the data, `serverPageSize` makes the server page (and send `__next`).
    init(people: Int, serverPageSize: Int, requestTimeout: TimeInterval) async throws {
        let directory = NSTemporaryDirectory() + "reliability-soak-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        server = try await DemoServer.start(
            DemoServerConfiguration(
                people: people, dataPath: directory + "/demo.sqlite", pageSize: serverPageSize
            ))
        proxy = try FaultProxy(upstreamPort: server.port)
        let root = "http://127.0.0.1:\(proxy.port)/CarDealer.svc/"
        cachePath = directory + "/cache.sqlite"
        // The session the executable builds, with the fetcher's retries shortened for the soak.
        var settings = SessionSettings(serviceRoot: root)
        settings.profile = Browser.DisplayProfile.carDealer
        settings.cacheFile = cachePath
        // The walk is about reading under faults; the write path has its own tests.
        settings.allowsWrites = false
        // (a stall is caught by the wait for the next bytes; a whole exchange gets room, so that a machine busy with
        // the rest of the suite does not fail the start-up's $metadata: it once took over 3 s there)
        settings.timeout = requestTimeout
        settings.requestTimeout = max(10, requestTimeout * 3)
        settings.tune = { configuration in
            configuration.retry = RetryPolicy(maxAttempts: 2, baseDelay: 0.005, maxDelay: 0.02)
            configuration.offlineProbeInterval = 0.02
        }
        let session = try await BrowsingSession.start(settings)
        cache = session.cache
        engine = session.engine
        let environment = session.makeEnvironment()
        terminal = HeadlessTerminal(size: TerminalSize(columns: 100, rows: 24))
        app = BrowserApp(
            terminal: terminal, environment: environment, root: session.makeRootController(in: environment))
        app.onFrame = { [weak self] frame in
            if let last = frame.lines.last { self?.statusLines.insert(last) }
        }
        app.presentIfNeeded()
    }

    /// Sends keys as one batch each; false if the browser asked to quit.
    @discardableResult
    func press(_ keys: Key...) -> Bool {
        keys.allSatisfy { app.handle([.key($0)]) }
    }

    /// Resizes the headless terminal and delivers the resize.
    func resize(_ size: TerminalSize) {
        terminal.resize(to: size)
        _ = app.handle(terminal.readKeys().map { .key($0) })
    }

    /// Waits until the fetcher is idle, or fails after `seconds` (a hang).
    func waitUntilIdle(seconds: Double = 60) async -> Bool {
        let engine = self.engine
        return await withDeadline(seconds: seconds) { await engine.waitUntilIdle() }
    }

    /// Presses `r` and waits until a request it caused has ended (the screen may ask on its next turn).
    func refreshAndSettle() async throws {
        let before = try cache.requestLog(limit: 1).first?.id ?? 0
        press(.char("r"))
        let deadline = ContinuousClock.now + .seconds(15)
        while try (cache.requestLog(limit: 1).first?.id ?? 0) == before, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        _ = await waitUntilIdle()
    }

    /// Pops every screen, clears a filter, and returns the root list controller.
    func backToRoot() {
        // Each screen takes at most two: one clears its filter, one closes it.
        var stuck = 0
        while app.stack.controllers.count > 1 {
            let depth = app.stack.controllers.count
            press(.escape)
            stuck = app.stack.controllers.count < depth ? 0 : stuck + 1
            if stuck == 2 {
                Issue.record("Esc did not close \(type(of: app.stack.top)) at depth \(depth): \(app.stack.breadcrumb)")
                return
            }
        }
        press(.escape)
    }

    func stop() async {
        app.shutdown()
        proxy.stop()
        await server.stop()
    }
}

/// Runs `operation`, returning false if it did not finish within `seconds`.
///
/// Not a task group: a group waits for all its children, and an operation stuck in a continuation that
/// ignores cancellation (a hang, which is what this detects) would keep it waiting forever.
func withDeadline(seconds: Double, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
    let resumed = Mutex(false)
    return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let finish: @Sendable (Bool) -> Void = { value in
            let first = resumed.withLock { done in
                defer { done = true }
                return !done
            }
            if first { continuation.resume(returning: value) }
        }
        Task {
            await operation()
            finish(true)
        }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            finish(false)
        }
    }
}

/// A deterministic generator for random walks (xorshift64*).
struct WalkRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }
}

/// Read-only facts about a cache file, straight from SQLite (not through the cache's API).
struct CacheFile {
    let queue: DatabaseQueue

    init(path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        // The browser may be checkpointing its log (or opening the file) at that moment: wait as it would.
        configuration.busyMode = .timeout(10)
        queue = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// `PRAGMA integrity_check`'s answer: "ok" when the file is sound.
    func integrityCheck() throws -> String {
        try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }

    /// Relation rows, list rows and list-row gaps that point nowhere or contradict their list.
    func orphans() throws -> [String: Int] {
        try queue.read { db in
            [
                "relation children without an entity": try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM relation r,
                            json_each(CASE WHEN json_valid(r.childKeys) THEN r.childKeys ELSE '[]' END) c
                        WHERE NOT EXISTS (SELECT 1 FROM entity e WHERE e.key = c.value)
                        """) ?? 0,
                "relations whose child keys are not a JSON array of strings": try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM relation r WHERE CASE
                            WHEN NOT json_valid(r.childKeys) THEN 1
                            WHEN json_type(r.childKeys) <> 'array' THEN 1
                            ELSE EXISTS (SELECT 1 FROM json_each(r.childKeys) c WHERE c.type <> 'text') END
                        """) ?? 0,
                "list rows without an entity": try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM listRow r WHERE NOT EXISTS (SELECT 1 FROM entity e WHERE e.key = r.entityKey)
                        """) ?? 0,
                "list rows without a list": try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM listRow r WHERE NOT EXISTS (SELECT 1 FROM list l WHERE l.id = r.listId)
                        """) ?? 0,
                "entities at two positions of one list": try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COALESCE(SUM(n - 1), 0) FROM
                            (SELECT COUNT(*) AS n FROM listRow GROUP BY listId, entityKey HAVING n > 1)
                        """) ?? 0,
                "lists whose fetchedCount disagrees with their rows": try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM list l
                        WHERE l.fetchedCount != (SELECT COUNT(*) FROM listRow r WHERE r.listId = l.id)
                        """) ?? 0,
            ]
        }
    }

    /// Lists marked complete whose rows are not exactly positions 0..<totalCount.
    func completeButPartialLists() throws -> [String] {
        try queue.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT l.listKey || ' total ' || IFNULL(l.totalCount, 'NULL')
                        || ' rows ' || (SELECT COUNT(*) FROM listRow r WHERE r.listId = l.id)
                        || ' max position ' || IFNULL((SELECT MAX(position) FROM listRow r WHERE r.listId = l.id), 'none')
                    FROM list l WHERE l.isComplete
                    AND (l.totalCount IS NULL
                        OR (SELECT COUNT(*) FROM listRow r WHERE r.listId = l.id) != l.totalCount
                        OR EXISTS (SELECT 1 FROM listRow r WHERE r.listId = l.id AND (r.position < 0 OR r.position >= l.totalCount)))
                    """)
        }
    }
}
