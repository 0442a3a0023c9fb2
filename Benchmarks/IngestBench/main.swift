// ingest-bench: entities/s from recorded OData v2 payloads into the cache, the way the fetcher does it.
//
// Usage: ingest-bench DIR [ROUNDS]
//   DIR holds `metadata.xml` (the service's $metadata) and `page-*.json` (recorded responses of
//   `Person?$expand=PersonCar/Car&$top=…&$skip=…&$inlinecount=allpages`), e.g. from Benchmarks/run.sh.
// For each round, a fresh SQLite cache file in a temporary directory gets every page: decode with
// ODataCore's VerboseJSONDecoder (typed by $metadata), normalise into flat rows, commit — one
// transaction per page, as the fetcher writes one response. Also times decoding alone.
// Prints one JSON object: the best round's figures.
import EntityCache
import Foundation
import ODataCore
import Sync

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: ingest-bench DIR [ROUNDS]\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[1])
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
let root = "http://127.0.0.1/CarDealer.svc/"

let model = try EDMXParser.parse(Array(try Data(contentsOf: directory.appendingPathComponent("metadata.xml"))))
let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    .filter { $0.hasPrefix("page-") && $0.hasSuffix(".json") }.sorted()
let pages: [[UInt8]] = try names.map { Array(try Data(contentsOf: directory.appendingPathComponent($0))) }
let totalBytes = pages.reduce(0) { $0 + $1.count }
let decoder = VerboseJSONDecoder(serviceRoot: root, model: model)
let listKey = ListRequest(entitySet: "Person").key
let pageSize = 100

/// Seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Decodes every page; returns seconds.
func decodeOnly() throws -> Double {
    let start = ContinuousClock.now
    for page in pages { _ = try decoder.decode(page, entitySet: "Person") }
    return seconds(since: start)
}

/// Decodes, normalises and commits every page into a fresh cache; returns (seconds, entities, cache bytes).
func ingest(round: Int) throws -> (Double, Int, Int) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-bench-\(getpid())-\(round)")
    try? FileManager.default.removeItem(at: folder)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let cache = try CacheDatabase(path: folder.appendingPathComponent("cache.sqlite").path)
    let normaliser = Normaliser()
    var entities = 0
    let start = ContinuousClock.now
    for (index, page) in pages.enumerated() {
        let payload = try decoder.decode(page, entitySet: "Person")
        let target = FetchTarget.listPage(listKey, entitySet: "Person", offset: index * pageSize, requestedTop: pageSize)
        let summary = try cache.write { session in
            try normaliser.write(payload, for: target, partial: false, at: Date(), into: session)
        }
        entities += summary.entities
    }
    let elapsed = seconds(since: start)
    let size = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.reduce(0) { total, name in
        let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
        return total + ((attributes?[.size] as? Int) ?? 0)
    } ?? 0
    return (elapsed, entities, size)
}

var best: (Double, Int, Int)?
var bestDecode = Double.infinity
for round in 0..<max(rounds, 1) {
    bestDecode = min(bestDecode, try decodeOnly())
    let result = try ingest(round: round)
    if best == nil || result.0 < best!.0 { best = result }
}
let (elapsed, entities, cacheBytes) = best!
let report: [String: Any] = [
    "pages": pages.count, "bytes": totalBytes, "entities": entities, "rounds": rounds,
    "ingest_seconds": elapsed, "ingest_entities_per_s": Double(entities) / elapsed,
    "decode_seconds": bestDecode, "decode_entities_per_s": Double(entities) / bestDecode,
    "cache_bytes": cacheBytes,
]
let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
