import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Sync
import Testing

/// mock-sap's GWSAMPLE_BASIC service root, when `.ci/checks/30-independent-writes.sh` started one.
let mockSAPRoot = ProcessInfo.processInfo.environment["CARDEALER_MOCKSAP_ROOT"]

/// Changing data on a server we did not write: mock-sap's GWSAMPLE_BASIC (PyPI `mock-sap`, SAP Gateway's shapes:
/// CSRF tokens, weak ETags, MERGE), browsed by the built binary in tmux. `.ci/checks/30-independent-writes.sh`
/// installs and starts it on loopback and sets `CARDEALER_MOCKSAP_ROOT`; without it these tests do not run.
@Suite(
    .tags(.endToEnd),
    .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"),
    .enabled(if: mockSAPRoot != nil, "CARDEALER_MOCKSAP_ROOT is not set (see .ci/checks)")
)
struct IndependentServerWriteTests {
    typealias Launch = BrowserInTmuxTests.Launch
    static let root = mockSAPRoot

    /// The service's own copy of a business partner's company name, read past the browser.
    func companyName(_ id: String) async throws -> String? {
        let root = try #require(Self.root)
        let transport = try HTTPClientTransport(serviceRoot: root, environment: [:], timeout: 5)
        let response = try await transport.send(TransportRequest(url: root + "BusinessPartnerSet('\(id)')"))
        guard case .entity(let entity) = try PayloadDecoder(serviceRoot: root).decode(response.body) else {
            return nil
        }
        if case .string(let name)? = entity.properties.first(where: { $0.name == "CompanyName" })?.value { return name }
        return nil
    }

    /// Opens the first business partner's form, replaces its company name with `name` and saves.
    func change(_ app: Launch, to name: String) async throws {
        try app.tmux.sendKeys("g", "e")
        try await app.expect("the form") { $0.contains("Company Name") && $0.contains("(key)") }
        try app.tmux.sendKeys("C-u")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", name)
        try app.tmux.sendKeys("Enter")
    }

    @Test func a_change_saved_in_the_form_reaches_the_service_with_its_csrf_token_and_etag() async throws {
        let root = try #require(Self.root)
        let app = try Launch("browse \(root)BusinessPartnerSet", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the business partners") { $0.contains("● online") && !$0.contains("loading…") }
        // When the first partner's company name is changed in the form
        let name = "Renamed by CarDealer \(UInt16.random(in: 1000...9999))"
        try await change(app, to: name)
        // Then the list shows it at once, and the service settles it (nothing pending, nothing to resolve)
        // (the list, not the form: the form shows the typed name too, above its keys)
        let screen = try await app.expect("the change, settled") {
            $0.contains(name) && !$0.contains("Enter saves") && !$0.contains("pending") && !$0.contains("to resolve")
        }
        #expect(!screen.contains("CSRF"), "\(screen)")
        // And the service holds it (the request log shows the write)
        try app.tmux.sendKeys("i")
        try await app.expect("the write in the request log") { $0.contains("written") }
        #expect(try await companyName("0100000000") == name)
        try app.tmux.sendKeys("Escape")
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test func a_change_made_meanwhile_on_the_service_is_a_conflict_that_keep_mine_resolves() async throws {
        let root = try #require(Self.root)
        let app = try Launch("browse \(root)BusinessPartnerSet", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the business partners") { $0.contains("● online") && !$0.contains("loading…") }
        // Given the form open on the first partner, and someone else renaming it on the service meanwhile (after the
        // form opened: a prefetch of the row answered after the rename would bring the new version, and no conflict)
        try app.tmux.sendKeys("g", "e")
        try await app.expect("the form") { $0.contains("Company Name") && $0.contains("(key)") }
        let transport = try HTTPClientTransport(serviceRoot: root, environment: [:], timeout: 5)
        let theirs = "Theirs \(UInt16.random(in: 1000...9999))"
        let merge = try await transport.send(
            TransportRequest(
                method: .merge, url: root + "BusinessPartnerSet('0100000000')",
                headers: ["Content-Type": "application/json"],
                body: RequestBodyEncoder.object([.init(name: "CompanyName", value: .string(theirs))])))
        #expect((200..<300).contains(merge.status), "the service refused the other change: \(merge.status)")
        // When the browser's user changes it too
        let mine = "Mine \(UInt16.random(in: 1000...9999))"
        try app.tmux.sendKeys("C-u")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", mine)
        try app.tmux.sendKeys("Enter")
        // Then the change waits as a conflict, and the outbox shows both versions
        try await app.expect("a change to resolve") { $0.contains("1 to resolve") }
        try app.tmux.sendKeys("o")
        try await app.expect("the conflict in the outbox") { $0.contains("conflict") }
        try app.tmux.sendKeys("Enter")
        try await app.expect("mine and theirs") { $0.contains(mine) && $0.contains(theirs) }
        // When mine is kept
        try app.tmux.sendKeys("Escape", "m")
        try await app.expect("the outbox empty") { $0.contains("Every change made here is on the service.") }
        // Then the service holds mine
        #expect(try await companyName("0100000000") == mine)
    }
}

extension IndependentServerWriteTests {
    /// mock-sap's fault rules (`/_mock/faults`): `scenario` for requests of `method` whose path matches.
    func setFault(method: String, scenario: String?) async throws {
        let root = try #require(Self.root)
        let origin = root.components(separatedBy: "/sap/").first ?? root
        let transport = HTTPClientTransport(timeout: 5)
        if let scenario {
            let rule = #"{"method":"\#(method)","match":"BusinessPartnerSet","scenario":"\#(scenario)"}"#
            let response = try await transport.send(
                TransportRequest(
                    method: .post, url: origin + "/_mock/faults", headers: ["Content-Type": "application/json"],
                    body: Array(rule.utf8)))
            #expect(response.status == 201, "mock-sap refused the fault rule: \(response.status)")
        } else {
            _ = try await transport.send(TransportRequest(method: .delete, url: origin + "/_mock/faults"))
        }
    }

    /// Whether the screen shows the shell's `EXIT=137` after a kill, wrapped over two lines or not.
    static func exited(_ screen: String) -> Bool {
        screen.contains("EXIT=137") || screen.replacingOccurrences(of: "\n", with: "").contains("EXIT=137")
    }

    @Test func a_change_queued_when_the_browser_is_killed_is_sent_by_the_next_start() async throws {
        let root = try #require(Self.root)
        let binary = try #require(BuiltProducts.executable("cardealer"))
        // Given a service whose gateway is busy for updates (503), and the browser on it
        try await setFault(method: "MERGE", scenario: "busy")
        let app = try Launch("browse \(root)BusinessPartnerSet", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the business partners") { $0.contains("● online") && !$0.contains("loading…") }
        // When a change is saved, waits for the gateway, and the browser is killed (SIGKILL)
        let name = "Survivor \(UInt16.random(in: 1000...9999))"
        try await change(app, to: name)
        try await app.expect("the change pending") { $0.contains(name) && $0.contains("1 pending") }
        let shell = try app.tmux.display("#{pane_pid}")
        // (again while it lives: under a loaded machine one pkill was seen to find nothing)
        for _ in 0..<5 {
            let kill = Process()
            kill.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
            kill.arguments = ["-KILL", "-P", shell, "-f", "cardealer"]
            try kill.run()
            kill.waitUntilExit()
            // (the shell's line may wrap where the killed browser's screen left the cursor)
            if try await app.tmux.waitFor(timeout: .seconds(4), { Self.exited($0) }).matched { break }
        }
        try await app.expect("the browser gone") { Self.exited($0) }
        // When the gateway recovers and the browser starts again on the same cache
        try await setFault(method: "MERGE", scenario: nil)
        // (a killed browser leaves the terminal raw, where Enter is a carriage return a plain shell never ends a
        // line on: a line feed, then the terminal put right)
        // (and the screen cleared, so that the next line is typed once the shell reads again, not into a pane
        // still busy under load)
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "stty sane; clear")
        try app.tmux.sendKeys("C-j")
        try await app.expect("a cleared terminal") { !$0.contains("Business Partners") }
        try app.tmux.run(
            "send-keys", "-t", app.tmux.target, "-l",
            "XDG_CACHE_HOME=\(app.directory)/cache XDG_DATA_HOME=\(app.directory)/data "
                + "XDG_STATE_HOME=\(app.directory)/state \(binary) browse \(root)BusinessPartnerSet; echo EXIT=$?")
        try app.tmux.sendKeys("C-j")
        // Then the queued change is sent by the new process, and the service holds it
        try await app.expect("the change settled after the restart") {
            $0.contains(name) && $0.contains("● online") && !$0.contains("pending")
        }
        #expect(try await companyName("0100000000") == name)
        try app.tmux.sendKeys("q")
    }
}

extension IndependentServerWriteTests {
    @Test func a_contact_made_through_the_fetcher_is_made_once_and_takes_the_services_key() async throws {
        let root = try #require(Self.root)
        // Given the fetcher on mock-sap's service, with its $metadata
        let transport = try HTTPClientTransport(serviceRoot: root, environment: [:], timeout: 5)
        let metadata = try await transport.send(TransportRequest(url: root + "$metadata"))
        let model = try EDMXParser.parse(metadata.body)
        let cache = try CacheDatabase()
        let engine = try SyncEngine.forTesting(
            root: root, transport: transport, model: model, cache: cache, clock: SystemClock())
        // When a contact is created (SAP's Guid keys are the client's to give)
        let guid = UUID().uuidString.lowercased()
        let name = "Quorra\(UInt16.random(in: 1000...9999))"
        engine.create(
            EntityCreation(
                entitySet: "ContactSet",
                properties: [
                    .init(name: "ContactGuid", value: .guid(guid)), .init(name: "FirstName", value: .string("Zed")),
                    .init(name: "LastName", value: .string(name)),
                    .init(name: "BusinessPartnerID", value: .string("0100000000")),
                ], addedTo: nil))
        await engine.flushIntents()
        // Then it settles (CSRF token fetched and sent), once, under the service's key
        let settled = try await eventually { try cache.outboxEntries().isEmpty }
        let left = try cache.outboxEntries().map { "\($0.state): \($0.lastError ?? "")" }
        #expect(settled, "\(left)")
        let response = try await transport.send(
            TransportRequest(
                url: root + "ContactSet?$filter=" + PercentEncoding.encodeQueryValue("LastName eq '\(name)'")))
        guard case .collection(let made) = try PayloadDecoder(serviceRoot: root).decode(response.body) else {
            Issue.record("not a collection: \(String(decoding: response.body, as: UTF8.self))")
            return
        }
        #expect(made.entities.count == 1)
        let key = try #require(made.entities.first?.key)
        #expect(try cache.entity(key)?["LastName"] == .string(name), "\(key)")
        withExtendedLifetime(engine) {}
    }
}

extension IndependentServerWriteTests {
    @Test func queued_changes_to_three_partners_go_in_one_batch_with_the_csrf_token_and_each_lands() async throws {
        let root = try #require(Self.root)
        // Given business partners 2 to 4 cached; when a change to each is queued at once and the outbox flushed
        let flushed = try await flushQueuedChanges(
            onMockSAP: root, set: "BusinessPartnerSet", rows: 1..<4, property: "CompanyName")
        // Then mock-sap received one $batch for them (after the CSRF token), and no MERGE of its own
        #expect(flushed.received.filter { $0.path.hasSuffix("$batch") }.map(\.status) == [202], "\(flushed.received)")
        #expect(!flushed.received.contains { $0.method == "MERGE" || $0.method == "PATCH" })
        // And the service holds each change
        for (key, value) in zip(flushed.keys, flushed.values) {
            guard case .string(let id)? = key.values.first?.value else { continue }
            #expect(try await companyName(id) == value)
        }
    }
}

/// The fetcher on mock-sap's service at `root`: rows `rows` of `set` cached with their ETags, then a change of
/// `property` to each queued at once and the outbox flushed until it is empty. The keys changed, the values they
/// took, and what mock-sap received from then on (its own log).
func flushQueuedChanges(
    onMockSAP root: String, set: String, rows: Range<Int>, property: String
) async throws -> (
    keys: [EntityKey], values: [String], received: [(id: Int, method: String, path: String, status: Int)]
) {
    let transport = try HTTPClientTransport(serviceRoot: root, environment: [:], timeout: 5)
    let metadata = try await transport.send(TransportRequest(url: root + "$metadata", acceptsXML: true))
    let model = try EDMXParser.parse(metadata.body)
    let cache = try CacheDatabase()
    let engine = try SyncEngine.forTesting(
        root: root, transport: transport, model: model, cache: cache, clock: SystemClock())
    let list = ListRequest(entitySet: set)
    engine.screenDidShow(.list(list), visible: 0..<(rows.upperBound + 2), screen: ScreenID(1))
    await engine.waitUntilIdle()
    let keys = try cache.listWindow(list.key, range: rows).rows.compactMap { $0.entity?.key }
    #expect(keys.count == rows.count)
    let last = try await mockSAPRequests(root: root, after: 0).map(\.id).max() ?? 0
    let suffix = UInt16.random(in: 1000...9999)
    let values = keys.indices.map { "B\($0)-\(suffix)" }
    try await cache.write { session in
        for (key, value) in zip(keys, values) {
            _ = try session.enqueueUpdate(
                key, changes: [.init(name: property, value: .string(value))], requestID: UUID().uuidString, at: Date())
        }
    }
    await engine.flushOutbox()
    let settled = try await eventually { try cache.outboxEntries().isEmpty }
    let left = try cache.outboxEntries().map { "\($0.state): \($0.lastError ?? "")" }
    #expect(settled, "\(left)")
    let received = try await mockSAPRequests(root: root, after: last)
    withExtendedLifetime(engine) {}
    return (keys, values, received)
}

/// mock-sap's request log after entry `earlier` (its own record of what reached it), of the service at `root` only
/// (tests of other services run at the same time): method, path and status.
func mockSAPRequests(
    root: String, after earlier: Int
) async throws -> [(
    id: Int, method: String, path: String, status: Int
)] {
    let origin = root.components(separatedBy: "/sap/").first ?? root
    let servicePath = String(root.dropFirst(origin.count))
    let response = try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: origin + "/_mock/requests"))
    guard case .array(let entries)? = try JSONReader().read(response.body)["results"] else { return [] }
    return entries.compactMap { entry in
        guard case .number(let id)? = entry["id"], let number = Int(id), number > earlier,
            case .string(let method)? = entry["method"], case .string(let path)? = entry["path"],
            case .number(let status)? = entry["status"], path.hasPrefix(servicePath)
        else { return nil }
        return (number, method, path, Int(status) ?? 0)
    }
}
