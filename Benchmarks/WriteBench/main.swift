// write-bench: what a save costs the screen, and how fast the outbox empties (issue 13's benchmark).
//
// 1. Save → row on screen: the built-in service in-process (0 and 300 ms latency), a session built as the
//    executable builds it, the Car list on a headless terminal; a change is handed to the fetcher as the form
//    does and the time until a presented frame shows it is taken, 200 times. The write itself is still on
//    the wire: the screen never waits for it.
// 2. Flush: 1,000 changes to 1,000 different people queued at once over 100 ms latency, sent 8 at a time (as
//    the fetcher does) and one at a time; writes per second each, and their ratio.
// Prints a line of figures per measurement and a `json:` line for the benchmark suite.
import Browser
import DemoServer
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Session
import Sync
import Terminal

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func session(
    latency: Int, maxConcurrentWrites: Int, directory: String, people: Int = 200
) async throws -> (RunningDemoServer, BrowsingSession) {
    let server = try await DemoServer.start(
        DemoServerConfiguration(people: people, dataPath: directory + "/demo.sqlite", latencyMilliseconds: latency))
    var settings = SessionSettings(serviceRoot: server.baseURL)
    settings.profile = DisplayProfile.carDealer
    settings.cacheFile = directory + "/cache-\(latency)-\(maxConcurrentWrites).sqlite"
    settings.tune = { $0.maxConcurrentWrites = maxConcurrentWrites }
    return (server, try await BrowsingSession.start(settings))
}

/// Milliseconds from handing each change to the fetcher to the first frame that shows it.
@MainActor
func saveToFrame(latency: Int, directory: String, saves: Int) async throws -> [Double] {
    let (server, session) = try await session(latency: latency, maxConcurrentWrites: 8, directory: directory)
    let environment = session.makeEnvironment()
    let terminal = HeadlessTerminal(size: TerminalSize(columns: 100, rows: 30))
    let app = BrowserApp(
        terminal: terminal, environment: environment,
        root: EntityListController(environment: environment, entitySet: "Car"))
    app.presentIfNeeded()
    // The first window of cars, fetched and on screen.
    var first: EntityKey?
    for _ in 0..<3000 where first == nil {
        try await Task.sleep(for: .milliseconds(5))
        first = try session.cache.listKeys(
            ListRequest(entitySet: "Car", orderBy: [.init("make"), .init("model"), .init("carID")]).key, range: 0..<1
        ).first
    }
    guard let car = first else { fatalError("the cars never arrived") }
    var times: [Double] = []
    for index in 0..<saves {
        let text = "Bench \(latency) \(index)"
        let start = ContinuousClock.now
        session.engine.save(EntityChange(key: car, changes: [ODataProperty(name: "model", value: .string(text))]))
        while !terminal.lastFrame.contains(where: { $0.contains(text) }) {
            await Task.yield()
            try await Task.sleep(for: .microseconds(100))
            if ContinuousClock.now - start > .seconds(10) { fatalError("the change never showed") }
        }
        let elapsed = ContinuousClock.now - start
        times.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
    }
    app.shutdown()
    await server.stop()
    return times
}

/// Seconds to empty an outbox of `count` changes to as many people, `concurrency` writes at a time.
func flush(count: Int, concurrency: Int, directory: String) async throws -> Double {
    let (server, session) = try await session(
        latency: 100, maxConcurrentWrites: concurrency, directory: directory, people: count)
    // The people in the cache, as a screen would have fetched them: ten pages at once.
    let list = ListKey(canonical: "Person")
    await withTaskGroup(of: Void.self) { group in
        for offset in stride(from: 0, to: count, by: 100) {
            group.addTask {
                _ = await session.engine.fetch(
                    server.baseURL + "Person?$orderby=personID&$top=100&$skip=\(offset)",
                    target: .listPage(list, entitySet: "Person", offset: offset, requestedTop: 100))
            }
        }
    }
    let people = (1...count).map { EntityKey(entitySet: "Person", value: .int(Int64($0))) }
    let arrived = try people.allSatisfy { try session.cache.entity($0) != nil }
    precondition(arrived, "the people never arrived")
    let start = ContinuousClock.now
    for person in people {
        session.engine.save(
            EntityChange(key: person, changes: [ODataProperty(name: "lastName", value: .string("Flushed"))]))
    }
    await session.engine.flushIntents()
    while try !session.cache.outboxEntries().isEmpty {
        try await Task.sleep(for: .milliseconds(5))
    }
    let elapsed = ContinuousClock.now - start
    let written = try await server.store.reader.read { db in
        try Int.fetchOne(db, sql: "SELECT count(*) FROM Person WHERE lastName = 'Flushed'") ?? 0
    }
    let logged = try session.cache.requestLog(limit: 100_000).filter { $0.outcome == .written }.count
    precondition(written == count, "\(written) of \(count) changes reached the service (\(logged) logged)")
    await server.stop()
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

let root = NSTemporaryDirectory() + "write-bench-\(getpid())"
var figures: [String: Double] = [:]
for latency in [0, 300] {
    let directory = root + "/frame-\(latency)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let times = try await saveToFrame(latency: latency, directory: directory, saves: 200)
    figures["save_to_frame_p50_ms_\(latency)"] = percentile(times, 0.5)
    figures["save_to_frame_p99_ms_\(latency)"] = percentile(times, 0.99)
    print(
        String(
            format: "save → row on screen at %d ms latency: p50 %.2f ms, p99 %.2f ms (%d saves)", latency,
            percentile(times, 0.5), percentile(times, 0.99), times.count))
}
let count = 1000
for concurrency in [8, 1] {
    let directory = root + "/flush-\(concurrency)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let seconds = try await flush(count: count, concurrency: concurrency, directory: directory)
    figures["flush_writes_per_s_\(concurrency)"] = Double(count) / seconds
    print(
        String(
            format: "flush of %d changes to %d people over 100 ms latency, %d at a time: %.2f s = %.1f writes/s",
            count, count, concurrency, seconds, Double(count) / seconds))
}
figures["flush_ratio"] = figures["flush_writes_per_s_8"]! / figures["flush_writes_per_s_1"]!
print(String(format: "flush: %.1f× one at a time", figures["flush_ratio"]!))
try? FileManager.default.removeItem(atPath: root)
let json = try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])
print("json: " + String(decoding: json, as: UTF8.self))
