import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Sync

// cache-bench: ingest rate and window-read latency of the cache, printed as measured.
// Run in release: `swift run -c release --package-path Benchmarks cache-bench [rows]` (default 1,000,000).

let rows = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
let directory = NSTemporaryDirectory() + "cache-bench-\(getpid())"
let path = directory + "/bench.sqlite"
defer { try? FileManager.default.removeItem(atPath: directory) }

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
}

func residentMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return -1 }
    return kilobytes / 1024
}

let model = try EDMXParser.parse(try Payloads.edmx)
let decoder = PayloadDecoder(serviceRoot: Payloads.root, model: model)
let cache = try CacheDatabase(path: path)
let list = ListRequest(entitySet: "Person").key
let normaliser = Normaliser()
let fetchedAt = Date()

// 1. Ingest: recorded pages of 100 people with PersonCar/Car expanded (5 entities per person).
let pageSize = 100
let ingestPages = 400
var ingested = 0
var ingestTime = 0.0
var decodeTime = 0.0
for index in 0..<ingestPages {
    // Generating the payload is not timed; decoding, normalising and committing are.
    let bytes = Payloads.peoplePage(first: index * pageSize, size: pageSize, total: rows)
    var payload: ODataPayload?
    decodeTime += try seconds { payload = try decoder.decode(bytes, entitySet: "Person") }
    ingestTime += try seconds {
        let target = FetchTarget.listPage(list, entitySet: "Person", offset: index * pageSize, requestedTop: nil)
        let summary = try cache.writeBlocking {
            try normaliser.write(payload!, for: target, partial: false, at: fetchedAt, into: $0)
        }
        ingested += summary.entities
    }
}
ingestTime += decodeTime
print(
    String(
        format:
            "ingest: %d entities in %.3f s = %.0f entities/s (decode + normalise + commit on one thread, one transaction per page, %d pages; decode %.3f s; the fetcher pipelines: see ingest-bench)",
        ingested, ingestTime, Double(ingested) / ingestTime, ingestPages, decodeTime))

// 2. Fill the list to `rows` people (plain rows, 10,000 per transaction).
let fillTime = try seconds {
    var first = ingestPages * pageSize
    while first < rows {
        let count = min(10_000, rows - first)
        try cache.writeBlocking { session in
            var keys: [EntityKey] = []
            keys.reserveCapacity(count)
            for id in first..<(first + count) {
                let key = EntityKey(entitySet: "Person", value: .int(Int64(id)))
                try session.upsertEntity(
                    key: key, entitySet: "Person", type: "edmexampleModel.Person",
                    properties: [
                        .init(name: "personID", value: .int(Int64(id))),
                        .init(name: "firstName", value: .string("First \(id)")),
                        .init(name: "lastName", value: .string("Last \(id)")),
                    ],
                    etag: nil, at: fetchedAt, partial: false
                )
                keys.append(key)
            }
            try session.writeListPage(
                list, offset: first, entityKeys: keys, totalCount: rows,
                nextLink: first + count < rows ? "next" : nil, isLastPage: first + count >= rows,
                at: fetchedAt)
        }
        first += count
    }
}
print(String(format: "fill: list of %d rows written in %.1f s", rows, fillTime))

// 3. Window reads at random positions, and entities by key.
var generator = SystemRandomNumberGenerator()
var windowTimes: [Double] = []
for _ in 0..<2000 {
    let start = Int.random(in: 0..<(rows - 50), using: &generator)
    var window: ListWindow?
    windowTimes.append(try seconds { window = try cache.listWindow(list, range: start..<(start + 50)) })
    precondition(window?.rows.count == 50 && window?.rows.allSatisfy { $0.entity != nil } == true)
}
var entityTimes: [Double] = []
for _ in 0..<5000 {
    let key = EntityKey(entitySet: "Person", value: .int(Int64.random(in: 0..<Int64(rows), using: &generator)))
    var found: CachedEntity?
    entityTimes.append(try seconds { found = try cache.entity(key) })
    precondition(found != nil)
}
// Hop reads: a person's cars through the PersonCar link entities, as the cars screen reads them.
var hopTimes: [Double] = []
for _ in 0..<5000 {
    let key = EntityKey(
        entitySet: "Person", value: .int(Int64.random(in: 0..<Int64(ingestPages * pageSize), using: &generator)))
    var hops: Related<HopRow>?
    hopTimes.append(try seconds { hops = try cache.related(key, path: ["PersonCar", "Car"]) })
    guard case .known(let found, _)? = hops, found.allSatisfy({ $0.target != nil }) else {
        preconditionFailure("\(key)")
    }
}
func percentile(_ samples: [Double], _ share: Double) -> Double {
    let sorted = samples.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * share))]
}
func report(_ name: String, _ samples: [Double]) {
    let sorted = samples.sorted()
    let mean = samples.reduce(0, +) / Double(samples.count)
    print(
        String(
            format: "%@: mean %.3f ms, p50 %.3f ms, p99 %.3f ms, max %.3f ms (%d reads)", name, mean * 1000,
            sorted[sorted.count / 2] * 1000, sorted[sorted.count * 99 / 100] * 1000, sorted.last! * 1000,
            samples.count))
}
report("window of 50 rows at random positions of \(rows)", windowTimes)
report("entity by key", entityTimes)
report("a person's cars through PersonCar (hop read)", hopTimes)
let rss = residentMegabytes()
print(String(format: "RSS after the run: %.1f MiB", rss))
// One JSON line for the benchmark suite.
let summary: [String: Any] = [
    "rows": rows, "ingest_entities_per_s": Double(ingested) / ingestTime, "fill_seconds": fillTime,
    "window_p50_ms": percentile(windowTimes, 0.5) * 1000, "window_p99_ms": percentile(windowTimes, 0.99) * 1000,
    "window_max_ms": windowTimes.max()! * 1000, "window_reads": windowTimes.count,
    "entity_p50_ms": percentile(entityTimes, 0.5) * 1000, "entity_p99_ms": percentile(entityTimes, 0.99) * 1000,
    "entity_reads": entityTimes.count, "hop_p50_ms": percentile(hopTimes, 0.5) * 1000,
    "hop_p99_ms": percentile(hopTimes, 0.99) * 1000, "rss_mib": rss,
]
print(
    "json: "
        + String(decoding: try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys]), as: UTF8.self))
