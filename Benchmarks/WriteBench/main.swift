// write-bench: what a save costs the screen, and how fast the outbox empties (issue 13's benchmark).
//
// 1. Save → row on screen: the built-in service in-process (0 and 300 ms latency), a session built as the
//    executable builds it, the Car list on a headless terminal; a change is handed to the fetcher as the form
//    does and the time until a presented frame shows it is taken, 200 times. The write itself is still on
//    the wire: the screen never waits for it.
// 2. Flush: 1,000 changes to 1,000 different people queued at once over 100 ms latency, sent in `$batch`es of
//    100 (as the fetcher does where a service takes them, issue 34), 8 requests at a time (as it does where one does
//    not) and one at a time; writes per second each, and the ratios to one at a time.
// 3. Refresh: a 10,000-row cached list after 100 changes and 10 deletions on the service, by its delta link and by
//    reading its pages again, at 100 ms latency; seconds, bytes and requests each.
// 4. Creates: 100 new cars, each added among a different person's cars (a car and the ownership that links it), at
//    100 ms latency, batched (each car with its ownership in one changeset) and one request at a time; seconds and
//    requests on the wire, the links checked on the service.
// Prints a line of figures per measurement and a `json:` line for the benchmark suite.
import Browser
import DemoServer
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Session
import Sync
import Terminal

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func session(
    latency: Int, maxConcurrentWrites: Int, batch: Int = 100, directory: String, people: Int = 200
) async throws -> (RunningDemoServer, BrowsingSession) {
    let server = try await DemoServer.start(
        DemoServerConfiguration(people: people, dataPath: directory + "/demo.sqlite", latencyMilliseconds: latency))
    var settings = SessionSettings(serviceRoot: server.baseURL)
    settings.profile = DisplayProfile.carDealer
    settings.cacheFile = directory + "/cache-\(latency)-\(maxConcurrentWrites)-\(batch).sqlite"
    settings.tune = {
        $0.maxConcurrentWrites = maxConcurrentWrites
        $0.writeBatchSize = batch
    }
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

/// People 1 to `count`, each checked to be in the cache (the run stops, saying so, when one is not).
func cachedPeople(_ session: BrowsingSession, count: Int) throws -> [EntityKey] {
    let people = (1...count).map { EntityKey(entitySet: "Person", value: .int(Int64($0))) }
    let arrived = try people.allSatisfy { try session.cache.entity($0) != nil }
    precondition(arrived, "the people never arrived")
    return people
}

/// Seconds to empty an outbox of `count` changes to as many people: `batch` writes per `$batch` (1: none), or
/// `concurrency` requests at a time.
func flush(count: Int, concurrency: Int, batch: Int, directory: String) async throws -> (seconds: Double, requests: Int)
{
    let (server, session) = try await session(
        latency: 100, maxConcurrentWrites: concurrency, batch: batch, directory: directory, people: count)
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
    let people = try cachedPeople(session, count: count)
    let logBefore = try session.cache.requestLog(limit: 100_000).count
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
    let requests = try writeRequests(session, after: logBefore)
    await server.stop()
    return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, requests)
}

/// Requests on the wire since the log held `before` lines: the writes sent alone, and one per batch (its writes are
/// logged each, "in $batch", at the batch's start).
func writeRequests(_ session: BrowsingSession, after before: Int) throws -> Int {
    let log = try session.cache.requestLog(limit: 100_000)
    let writes = log.suffix(max(0, log.count - before))
    let batched = Set(writes.filter { $0.method.hasSuffix("in $batch") }.map(\.startedAt)).count
    return writes.filter { !$0.method.hasSuffix("in $batch") && $0.method != "GET" }.count + batched
}

/// Seconds to make `count` cars, each among a different person's cars (the car, and the ownership linking it to
/// the person), and requests on the wire: `batch` writes per `$batch` (1: none, one request at a time). Checked on
/// the service: every new car is owned by the person it was added to.
func createWithLinks(count: Int, batch: Int, directory: String) async throws -> (seconds: Double, requests: Int) {
    let (server, session) = try await session(
        latency: 100, maxConcurrentWrites: batch > 1 ? 8 : 1, batch: batch, directory: directory, people: count)
    // The people and their cars in the cache, as the people list's prefetch leaves them.
    let list = ListKey(canonical: "Person")
    _ = await session.engine.fetch(
        server.baseURL + "Person?$orderby=personID&$top=\(count)&$expand=PersonCar/Car",
        target: .listPage(list, entitySet: "Person", offset: 0, requestedTop: count))
    let people = try cachedPeople(session, count: count)
    let logBefore = try session.cache.requestLog(limit: 100_000).count
    let start = ContinuousClock.now
    for person in people {
        let model = "New \(person.canonical)"
        session.engine.create(
            EntityCreation(
                entitySet: "Car",
                properties: [
                    ODataProperty(name: "make", value: .string("Bench")),
                    ODataProperty(name: "model", value: .string(model)),
                    ODataProperty(
                        name: "manufactureDate",
                        value: .dateTime(ODataInstant(millisecondsSince1970: 1_600_000_000_000))),
                ],
                addedTo: .related(parent: person, path: ["PersonCar", "Car"])))
    }
    await session.engine.flushIntents()
    // (until every write is settled, or waits for the user)
    while try session.cache.outboxEntries().contains(where: \.isQueued) {
        try await Task.sleep(for: .milliseconds(5))
    }
    let elapsed = ContinuousClock.now - start
    let refused = try session.cache.outboxEntries().map {
        "\($0.kind) \($0.entityKey.canonical): \($0.lastError ?? "")"
    }
    precondition(refused.isEmpty, "writes were refused: " + refused.joined(separator: "; "))
    // Each new car owned by the person it was added to, on the service.
    let linked = try await server.store.reader.read { db in
        try Int.fetchOne(
            db,
            sql: """
                SELECT count(*) FROM Car JOIN PersonCar ON PersonCar.carID = Car.carID
                WHERE Car.make = 'Bench' AND Car.model = 'New Person(' || PersonCar.personID || ')'
                """) ?? 0
    }
    precondition(linked == count, "\(linked) of \(count) new cars are owned by their person on the service")
    let requests = try writeRequests(session, after: logBefore)
    await server.stop()
    return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, requests)
}

/// What one refresh of `list` on `screen` cost: seconds from `r` until the fetcher is idle, bytes of the answers,
/// requests sent.
func timedRefresh(
    _ session: BrowsingSession, list: ListKey, screen: ScreenID
) async throws -> (seconds: Double, bytes: Int, requests: Int) {
    let before = try session.cache.requestLog(limit: 100_000).last?.id ?? 0
    let start = ContinuousClock.now
    session.engine.refresh(screen: screen)
    await session.engine.flushIntents()
    await session.engine.waitUntilIdle()
    let elapsed = ContinuousClock.now - start
    let sent = try session.cache.requestLog(limit: 100_000).filter { $0.id > before && $0.outcome != .coalesced }
    return (
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
        sent.reduce(0) { $0 + $1.bytes }, sent.count
    )
}

/// Refresh of a 10,000-row cached list after 100 changes and 10 deletions made on the service (issue 34): by the
/// list's delta link, against reading its pages again (the same changes again, the link forgotten first), at 100 ms
/// latency. Both end with the cache agreeing with the service, which is checked.
func refreshByDelta(directory: String) async throws -> [String: Double] {
    let cars = 10_000
    let latency = 100
    // (the demo makes 9 cars for every 10 people)
    let server = try await DemoServer.start(
        DemoServerConfiguration(
            people: cars * 10 / 9 + 1, dataPath: directory + "/demo.sqlite", latencyMilliseconds: latency))
    var settings = SessionSettings(serviceRoot: server.baseURL)
    settings.profile = DisplayProfile.carDealer
    settings.cacheFile = directory + "/cache.sqlite"
    let session = try await BrowsingSession.start(settings)
    let request = ListRequest(entitySet: "Car")
    let screen = ScreenID(1)
    // The whole list in the cache, as scrolling to its end leaves it.
    session.engine.screenDidShow(.list(request), visible: 0..<cars, screen: screen)
    await session.engine.flushIntents()
    await session.engine.waitUntilIdle()
    let fetched = try session.cache.listState(request.key)?.fetchedCount
    precondition(fetched == cars, "\(fetched ?? 0) of the \(cars) cars arrived")
    let link = try session.cache.deltaLink(for: request.key)
    precondition(link != nil, "the list came without a delta link")
    let service = HTTPClientTransport(timeout: 30)

    /// 100 changes and 10 deletions, sent to the service past the client, 16 at a time.
    func changeOnService(round: Int) async throws {
        let changed = (0..<100).map { 1 + $0 * 97 + round }
        let deleted = (0..<10).map { 9_000 + round * 10 + $0 }
        try await withThrowingTaskGroup(of: Int.self) { group in
            var pending = 0
            for (index, id) in (changed + deleted).enumerated() {
                if pending == 16 {
                    _ = try await group.next()
                    pending -= 1
                }
                group.addTask {
                    var write = TransportRequest(
                        method: index < changed.count ? .patch : .delete, url: server.baseURL + "Car(\(id))",
                        dialect: .v2)
                    if index < changed.count {
                        write.headers["Content-Type"] = "application/json"
                        write.body = Array(#"{"model":"Changed \#(round)"}"#.utf8)
                    }
                    let status = try await service.send(write).status
                    precondition(status == 204, "the service answered \(status) to a change")
                    return status
                }
                pending += 1
            }
            try await group.waitForAll()
        }
    }
    func agrees(round: Int, remaining: Int) throws -> Bool {
        try session.cache.listState(request.key)?.totalCount == remaining
            && session.cache.entity(EntityKey(entitySet: "Car", value: .int(Int64(1 + 97 * 50 + round))))?["model"]
                == .string("Changed \(round)")
            && !session.cache.listKeys(request.key, range: 0..<cars).contains(
                EntityKey(entitySet: "Car", value: .int(Int64(9_000 + round * 10))))
    }

    var figures: [String: Double] = [:]
    try await changeOnService(round: 0)
    let delta = try await timedRefresh(session, list: request.key, screen: screen)
    let deltaAgrees = try agrees(round: 0, remaining: cars - 10)
    precondition(deltaAgrees, "the delta left the cache behind the service")
    try await changeOnService(round: 1)
    try await session.cache.write { try $0.setDeltaLink(nil, for: request.key) }
    let full = try await timedRefresh(session, list: request.key, screen: screen)
    let fullAgrees = try agrees(round: 1, remaining: cars - 20)
    precondition(fullAgrees, "the full read left the cache behind the service")
    await server.stop()
    for (name, run) in [("delta", delta), ("full", full)] {
        figures["refresh_seconds_\(name)"] = run.seconds
        figures["refresh_bytes_\(name)"] = Double(run.bytes)
        figures["refresh_requests_\(name)"] = Double(run.requests)
        print(
            String(
                format: "refresh of %d cached cars after 100 changes and 10 deletions, %@: %.3f s, %d B in %d requests",
                cars, name == "delta" ? "by delta link" : "reading the pages again", run.seconds, run.bytes,
                run.requests))
    }
    figures["refresh_latency_ms"] = Double(latency)
    figures["refresh_bytes_ratio"] = Double(delta.bytes) / Double(max(1, full.bytes))
    print(String(format: "refresh: delta %.2f %% of the bytes of a full read", figures["refresh_bytes_ratio"]! * 100))
    return figures
}

let root = NSTemporaryDirectory() + "write-bench-\(getpid())"
// `write-bench [frame] [flush] [refresh] [creates]`: the parts named (all of them when none is).
let chosen = Set(CommandLine.arguments.dropFirst())
func runs(_ part: String) -> Bool { chosen.isEmpty || chosen.contains(part) }
var figures: [String: Double] = [:]
for latency in [0, 300] where runs("frame") {
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
for (name, concurrency, batch) in [("batched", 8, 100), ("8", 8, 1), ("1", 1, 1)] where runs("flush") {
    let directory = root + "/flush-\(name)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let (seconds, requests) = try await flush(
        count: count, concurrency: concurrency, batch: batch, directory: directory)
    figures["flush_writes_per_s_\(name)"] = Double(count) / seconds
    figures["flush_requests_\(name)"] = Double(requests)
    let how = batch > 1 ? "in $batches of \(batch)" : "\(concurrency) at a time"
    print(
        String(
            format: "flush of %d changes to %d people over 100 ms latency, %@: %.2f s = %.1f writes/s, %d requests",
            count, count, how, seconds, Double(count) / seconds, requests))
}
if runs("flush") {
    figures["flush_ratio"] = figures["flush_writes_per_s_8"]! / figures["flush_writes_per_s_1"]!
    figures["flush_ratio_batched"] = figures["flush_writes_per_s_batched"]! / figures["flush_writes_per_s_1"]!
    print(
        String(
            format: "flush: batched %.1f× one at a time; 8 at a time %.1f×", figures["flush_ratio_batched"]!,
            figures["flush_ratio"]!))
}
if runs("refresh") {
    let directory = root + "/refresh"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    figures.merge(try await refreshByDelta(directory: directory)) { $1 }
}
let creates = Int(ProcessInfo.processInfo.environment["CREATES"] ?? "") ?? 100
for (name, batch) in [("batched", 100), ("1", 1)] where runs("creates") {
    let directory = root + "/creates-\(name)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let (seconds, requests) = try await createWithLinks(count: creates, batch: batch, directory: directory)
    figures["creates_seconds_\(name)"] = seconds
    figures["creates_requests_\(name)"] = Double(requests)
    print(
        String(
            format:
                "%d cars each added among a person's cars (car + ownership) over 100 ms latency, %@: %.2f s, %d requests",
            creates,
            batch > 1 ? "in $batches of \(batch)" : "one request at a time", seconds, requests))
}
try? FileManager.default.removeItem(atPath: root)
let json = try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])
print("json: " + String(decoding: json, as: UTF8.self))
