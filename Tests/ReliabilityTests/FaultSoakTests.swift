import Browser
import CarDealerTestSupport
import DemoServer
import EntityCache
import Foundation
import GRDB
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Sync

/// A bounded random walk through the browser while the network misbehaves (issue 7, "fault soak").
///
/// Steps come from a seeded generator, so a failure repeats. `RELIABILITY_SOAK_STEPS` lengthens the
/// walk (the CI script runs a longer one); the default keeps `swift test` fast.
@MainActor
@Suite(.serialized)
struct FaultSoakTests {
    static let steps = ProcessInfo.processInfo.environment["RELIABILITY_SOAK_STEPS"].flatMap(Int.init) ?? 2_000
    static let seed = ProcessInfo.processInfo.environment["RELIABILITY_SOAK_SEED"].flatMap(UInt64.init) ?? 0xC0FFEE

    /// The faults injected; `RELIABILITY_FAULTS` (comma-separated names) narrows them down when diagnosing.
    static let faults =
        ProcessInfo.processInfo.environment["RELIABILITY_FAULTS"]
        .map { $0.split(separator: ",").compactMap { Fault(rawValue: String($0)) } } ?? Fault.reads

    /// For each fault: words the status line shows (its start, which fits any width) and words the full
    /// sentence in `SyncStatus.lastError` holds. A trickle is slow, not a failure: it must not show at all. A
    /// hang-up on a kept-alive connection is sent again by the transport: it shows only if that meets one too.
    static let words: [Fault: (line: String, sentence: String)] = [
        .drop: ("Could not reach the service", "Could not reach the service"),
        .cutMidBody: ("Could not reach the service", "Could not reach the service"),
        .stall: ("Could not reach the service", "timed out"),
        .serverError: ("HTTP 500", "Injected internal error"),
        .unavailable: ("HTTP 503", "Service Unavailable"),
        .truncated: ("not valid OData JSON", "not valid OData JSON"),
        .malformed: ("not valid OData JSON", "not valid OData JSON"),
        .wrongContentType: ("not valid OData JSON", "text/html, not JSON"),
    ]

    @Test func a_random_walk_under_faults_keeps_the_cache_sound_and_converges_once_they_stop() async throws {
        // Given the browser on the built-in service behind a proxy that breaks 30% of exchanges
        let people = 120
        let harness = try await SoakHarness(people: people, serverPageSize: 40, requestTimeout: 1)
        defer { Task { await harness.stop() } }
        harness.proxy.setFaultRate(0.3, faults: Self.faults)
        var random = WalkRandom(seed: Self.seed)
        var errorsSeen: Set<String> = []

        // When it takes a random walk: moving, paging, drilling in and out, filtering, refreshing, resizing
        for step in 0..<Self.steps {
            takeStep(&random, harness)
            if let error = try harness.cache.syncStatus().lastError { errorsSeen.insert(error) }
            if step % 5 == 4 {
                let idle = await harness.waitUntilIdle()
                let diagnosis = idle ? "" : await harness.engine.diagnosis
                #expect(idle, "the fetcher did not settle within 60 s at step \(step): a hang; \(diagnosis)")
                guard idle else { return }
            }
            if step % 500 == 499 {
                // Then at every checkpoint the file is sound
                try expectSound(harness.cachePath, at: "step \(step)")
            }
        }
        guard await harness.waitUntilIdle() else {
            Issue.record("the fetcher did not settle after the walk: \(await harness.engine.diagnosis)")
            return
        }
        errorsSeen.formUnion(try harness.cache.requestLog(limit: 2_000).compactMap(\.error))

        // Then every kind of fault happened, and failures reached the status line
        let injected = harness.proxy.injected
        for fault in Self.faults {
            #expect(injected[fault, default: 0] > 0, "\(fault) was never injected in \(Self.steps) steps")
        }
        #expect(
            harness.statusLines.contains { line in Self.words.values.contains { line.contains($0.line) } },
            "the status line never showed a failure; errors were: \(errorsSeen.sorted().prefix(10))")

        // When every request of the first screen meets one fault at a time, the status line names it in words
        harness.resize(TerminalSize(columns: 100, rows: 24))
        harness.backToRoot()
        for fault in Self.faults {
            harness.proxy.setFaultRate(1, faults: [fault])
            try await harness.refreshAndSettle()
            guard await harness.waitUntilIdle() else {
                Issue.record("the fetcher did not settle under \(fault): \(await harness.engine.diagnosis)")
                return
            }
            let status = try harness.cache.syncStatus()
            if let words = Self.words[fault] {
                _ = try await eventually { (harness.terminal.lastFrame.last ?? "").contains(words.line) }
            }
            let line = harness.terminal.lastFrame.last ?? ""
            if let words = Self.words[fault] {
                #expect(
                    status.lastError?.contains(words.sentence) == true, "\(fault): \(status.lastError ?? "no error")")
                #expect(line.contains(words.line), "\(fault): the status line was \(line)")
            }
            // and once the fault stops, a refresh clears it
            harness.proxy.setFaultRate(0)
            try await harness.refreshAndSettle()
        }

        // When the faults stop and the user goes back to the first screen and refreshes it to the end
        harness.proxy.setFaultRate(0)
        harness.backToRoot()
        #expect(harness.app.stack.controllers.count == 1)
        let rootKey = try #require(rootListKey(harness))
        var complete = false
        for _ in 0..<50 where !complete {
            harness.press(.char("r"), .end)
            guard await harness.waitUntilIdle() else {
                Issue.record("the fetcher did not settle after the faults stopped: \(await harness.engine.diagnosis)")
                return
            }
            complete = try harness.cache.listState(rootKey)?.isComplete == true
            let online = await harness.engine.online
            complete = complete && online
            if !complete { await Task.yield() }
        }

        // Then the cache holds exactly the server's data
        #expect(complete, "the first list never completed once faults stopped")
        try expectSound(harness.cachePath, at: "the end")
        try expectConverged(harness, rootKey: rootKey, people: people)
        let lastFrame = harness.terminal.lastFrame.joined(separator: "\n")
        #expect(lastFrame.contains("● online"), "status line after recovery:\n\(lastFrame)")
    }

    /// One random user action.
    func takeStep(_ random: inout WalkRandom, _ harness: SoakHarness) {
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<22: harness.press(.down)
        case 22..<30: harness.press(.up)
        case 30..<38: harness.press(.pageDown)
        case 38..<41: harness.press(.pageUp)
        case 41..<44: harness.press(.end)
        case 44..<47: harness.press(.home)
        case 47..<62: harness.press(.enter)
        case 62..<74: harness.press(.escape)
        case 74..<78: harness.press(.char("d"))
        case 78..<84: harness.press(.char("r"))
        case 84..<86: harness.press(.char("i"))
        case 86..<88: harness.press(.char("?"))
        case 88..<92:
            // Filter by a letter or two (server-side `$filter` when the list is not all cached), then leave it.
            let letters = ["a", "e", "o", "Mu", "ck", "zz"]
            harness.press(.char("/"))
            for character in letters[Int.random(in: 0..<letters.count, using: &random)] {
                harness.press(.char(character))
            }
            harness.press(Bool.random(using: &random) ? .enter : .escape)
        case 92..<95: harness.press(.mouseWheelDown)
        default:
            let sizes = [
                TerminalSize(columns: 100, rows: 24), TerminalSize(columns: 1, rows: 1),
                TerminalSize(columns: 20, rows: 5),
                TerminalSize(columns: 300, rows: 100), TerminalSize(columns: 80, rows: 24),
            ]
            harness.resize(sizes[Int.random(in: 0..<sizes.count, using: &random)])
        }
    }

    /// The root list's stored key (People ordered as the profile says).
    func rootListKey(_ harness: SoakHarness) -> ListKey? {
        let order = ["lastName", "firstName", "personID"].map { QueryOptions.OrderItem($0, descending: false) }
        return ListRequest(entitySet: "Person", orderBy: order).key
    }

    func expectSound(_ path: String, at moment: String) throws {
        let file = try CacheFile(path: path)
        #expect(try file.integrityCheck() == "ok", "integrity_check failed at \(moment)")
        for (fact, count) in try file.orphans() { #expect(count == 0, "\(count) \(fact) at \(moment)") }
        let partial = try file.completeButPartialLists()
        #expect(partial.isEmpty, "lists marked complete but partly fetched at \(moment): \(partial)")
    }

    /// The root list and every cached entity and relation agree with the server's database.
    func expectConverged(_ harness: SoakHarness, rootKey: ListKey, people: Int) throws {
        let server = harness.server.store.reader
        let order = try server.read { db in
            try Int.fetchAll(db, sql: "SELECT personID FROM Person ORDER BY lastName, firstName, personID")
        }
        let listed = try harness.cache.listKeys(rootKey, range: 0..<(people + 10))
        let state = try harness.cache.listState(rootKey)
        #expect(
            listed.map(\.canonical) == order.map { "Person(\($0))" },
            "the People list differs from the server's order; \(listed.count) rows, state \(String(describing: state))")

        let file = try CacheFile(path: harness.cachePath)
        let keys = try file.queue.read { db in try String.fetchAll(db, sql: "SELECT key FROM entity") }
        var compared = 0
        for key in keys {
            guard let entityKey = EntityKey(canonical: key), let entity = try harness.cache.entity(entityKey),
                case .int(let id)? = entityKey.values.first?.value
            else { continue }
            let columns: [String]
            switch entity.entitySet {
            case "Person": columns = ["firstName", "lastName", "ssn"]
            case "Car": columns = ["make", "model"]
            case "Maintenance": columns = ["description"]
            default: continue
            }
            let keyColumn = ["Person": "personID", "Car": "carID", "Maintenance": "maintenanceID"][entity.entitySet]!
            let row = try server.read { db in
                try Row.fetchOne(
                    db,
                    sql: "SELECT \(columns.joined(separator: ", ")) FROM \(entity.entitySet) WHERE \(keyColumn) = ?",
                    arguments: [id])
            }
            for column in columns {
                let cached = entity.properties.first { $0.name == column }?.value
                guard let cached else { continue }  // a `$select` response may have left it out
                #expect(cached == .string(row?[column] ?? ""), "\(key).\(column) differs from the server")
            }
            compared += 1
        }
        #expect(compared >= people, "only \(compared) entities compared")

        let relations = try file.queue.read { db in
            try Row.fetchAll(db, sql: "SELECT parentKey, navigation FROM relation WHERE navigation = 'PersonCar'")
        }
        for relation in relations {
            let parent: String = relation["parentKey"]
            guard parent.hasPrefix("Person("), let parentKey = EntityKey(canonical: parent),
                case .int(let id)? = parentKey.values.first?.value
            else { continue }
            let cached = Set(
                try harness.cache.relationKeys(parentKey, navigation: "PersonCar")?.keys.map(\.canonical) ?? [])
            let expected = try server.read { db in
                Set(
                    try Int.fetchAll(db, sql: "SELECT personCarID FROM PersonCar WHERE personID = ?", arguments: [id])
                        .map { "PersonCar(\($0))" })
            }
            #expect(cached == expected, "\(parent)/PersonCar differs from the server")
        }
    }
}

extension SyncEngine {
    /// What the engine holds, for a hang's report.
    var diagnosis: String {
        "online \(isOnline), queued \(queue.count), running \(running.keys.sorted()), parked \(parked.count), "
            + "probing \(probeTask != nil), idle waiters \(idleWaiters.count)"
    }
}
