// ingest-bench: entities/s from recorded OData v2 payloads into the cache, the way the fetcher does it.
//
// Usage: ingest-bench DIR [ROUNDS [SET]]
//   DIR holds `metadata.xml` (the service's $metadata) and `page-*.json` (recorded responses of
//   `Person?$expand=PersonCar/Car&$top=…&$skip=…&$inlinecount=allpages`), e.g. from Benchmarks/run.sh;
//   SET is the entity set the pages list (`Person` unless named: the TripPin-shaped pages list `People`).
// For each round, a fresh SQLite cache file in a temporary directory gets every page: decode with
// ODataCore's PayloadDecoder (typed by $metadata), normalise into flat rows, commit — one
// transaction per page, as the fetcher writes one response. Timed four ways, best round of each:
//   ingest    — serial: decode, normalise, commit page after page on one thread;
//   pipelined — decoding on a second thread while the writer commits (what the fetcher does: its jobs
//               decode concurrently, the cache has one writer); on 2 cores this is the throughput;
//   write     — normalise and commit only, the pages decoded beforehand;
//   decode    — decode only.
// Prints one JSON object.
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Sync

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: ingest-bench DIR [ROUNDS [SET]]\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[1])
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
let entitySet = arguments.count > 3 ? arguments[3] : "Person"
let root = "http://127.0.0.1/CarDealer.svc/"

let model = try EDMXParser.parse(Array(try Data(contentsOf: directory.appendingPathComponent("metadata.xml"))))
let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    .filter { $0.hasPrefix("page-") && $0.hasSuffix(".json") }.sorted()
let pages: [[UInt8]] = try names.map { Array(try Data(contentsOf: directory.appendingPathComponent($0))) }
let totalBytes = pages.reduce(0) { $0 + $1.count }
let decoder = PayloadDecoder(serviceRoot: root, model: model)
let listKey = ListRequest(entitySet: entitySet).key
let pageSize = 100

/// Seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Decodes every page; returns seconds.
func decodeOnly() throws -> Double {
    let start = ContinuousClock.now
    for page in pages { _ = try decoder.decode(page, entitySet: entitySet) }
    return seconds(since: start)
}

/// A fresh cache file in a temporary folder of its own; `remove()` deletes the folder.
func freshCache(_ name: String) throws -> (cache: CacheDatabase, folder: URL, remove: () -> Void) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-bench-\(getpid())-\(name)")
    try? FileManager.default.removeItem(at: folder)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let cache = try CacheDatabase(path: folder.appendingPathComponent("cache.sqlite").path)
    return (cache, folder, { try? FileManager.default.removeItem(at: folder) })
}

/// `body` with a fresh cache, removed afterwards; returns what `body` returned and the bytes the cache's
/// files took once it was closed (the log copied back).
func withFreshCache<T>(_ name: String, _ body: (CacheDatabase) throws -> T) throws -> (T, Int) {
    let (result, folder, remove) = try { () throws -> (T, URL, () -> Void) in
        let fresh = try freshCache(name)
        return (try body(fresh.cache), fresh.folder, fresh.remove)
    }()
    defer { remove() }
    let bytes =
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.reduce(0) { total, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            return total + ((attributes?[.size] as? Int) ?? 0)
        } ?? 0
    return (result, bytes)
}

/// Normalises and commits page `index`'s payload, one transaction, as the fetcher does; returns entities.
func write(_ payload: ODataPayload, page index: Int, into cache: CacheDatabase) throws -> Int {
    let target = FetchTarget.listPage(listKey, entitySet: entitySet, offset: index * pageSize, requestedTop: pageSize)
    let normaliser = Normaliser()
    return try cache.writeBlocking { session in
        try normaliser.write(payload, for: target, partial: false, at: Date(), into: session)
    }.entities
}

/// Serial: decode, normalise and commit each page in turn on one thread; returns (seconds, entities).
func ingestSerial(into cache: CacheDatabase) throws -> (Double, Int) {
    var entities = 0
    let start = ContinuousClock.now
    for (index, page) in pages.enumerated() {
        entities += try write(try decoder.decode(page, entitySet: entitySet), page: index, into: cache)
    }
    return (seconds(since: start), entities)
}

/// Write only: the pages decoded beforehand (not timed), then normalised and committed; returns seconds.
func writeOnly(into cache: CacheDatabase) throws -> Double {
    let payloads = try pages.map { try decoder.decode($0, entitySet: entitySet) }
    let start = ContinuousClock.now
    for (index, payload) in payloads.enumerated() { _ = try write(payload, page: index, into: cache) }
    let elapsed = seconds(since: start)
    withExtendedLifetime(payloads) {}
    return elapsed
}

/// Pipelined, as the fetcher runs: up to 4 jobs at once (its `maxConcurrent`), each decoding its page on
/// Swift's concurrent pool and then awaiting the cache's asynchronous write, which commits the writes
/// queued behind a busy writer together (`GroupCommit`). Returns seconds.
func ingestPipelined(into cache: CacheDatabase) async throws -> Double {
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (index, page) in pages.enumerated() {
            if index >= 4 { try await group.next() }
            group.addTask {
                let payload = try decoder.decode(page, entitySet: entitySet)
                let target = FetchTarget.listPage(
                    listKey, entitySet: entitySet, offset: index * pageSize, requestedTop: pageSize)
                let date = Date()
                _ = try await cache.write { session in
                    try Normaliser().write(payload, for: target, partial: false, at: date, into: session)
                }
            }
        }
        try await group.waitForAll()
    }
    return seconds(since: start)
}

var serial = Double.infinity
var pipelined = Double.infinity
var writing = Double.infinity
var decoding = Double.infinity
var entities = 0
var cacheBytes = 0
// `INGEST_BENCH_ONLY=write` or `=pipelined` times only that (for profiling it alone).
switch ProcessInfo.processInfo.environment["INGEST_BENCH_ONLY"] {
case "write":
    for round in 0..<max(rounds, 1) {
        writing = min(writing, try withFreshCache("write-\(round)") { try writeOnly(into: $0) }.0)
    }
    print("{\"write_seconds\": \(writing)}")
    exit(0)
case "pipelined":
    for round in 0..<max(rounds, 1) {
        let fresh = try freshCache("pipelined-\(round)")
        pipelined = min(pipelined, try await ingestPipelined(into: fresh.cache))
        fresh.remove()
    }
    print("{\"pipelined_seconds\": \(pipelined)}")
    exit(0)
default:
    break
}
for round in 0..<max(rounds, 1) {
    decoding = min(decoding, try decodeOnly())
    let ((elapsed, count), bytes) = try withFreshCache("serial-\(round)") { try ingestSerial(into: $0) }
    (serial, entities, cacheBytes) = (min(serial, elapsed), count, bytes)
    writing = min(writing, try withFreshCache("write-\(round)") { try writeOnly(into: $0) }.0)
    let pipelinedCache = try freshCache("pipelined-\(round)")
    pipelined = min(pipelined, try await ingestPipelined(into: pipelinedCache.cache))
    pipelinedCache.remove()
}
let report: [String: Any] = [
    "pages": pages.count, "bytes": totalBytes, "entities": entities, "rounds": rounds,
    "ingest_seconds": serial, "ingest_entities_per_s": Double(entities) / serial,
    "pipelined_seconds": pipelined, "pipelined_entities_per_s": Double(entities) / pipelined,
    "write_seconds": writing, "write_entities_per_s": Double(entities) / writing,
    "decode_seconds": decoding, "decode_entities_per_s": Double(entities) / decoding,
    "cache_bytes": cacheBytes,
]
let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
