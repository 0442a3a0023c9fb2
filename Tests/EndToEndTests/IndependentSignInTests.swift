import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Sync
import Testing

/// mock-sap's GWSAMPLE_BASIC behind OAuth 2.0 (`--oauth CLIENT:SECRET --token-ttl 5`), when
/// `.ci/checks/30-independent-writes.sh` started one.
let mockSAPOAuthRoot = ProcessInfo.processInfo.environment["CARDEALER_MOCKSAP_OAUTH_ROOT"]

/// Signing in to a server we did not write (issue 35): mock-sap fronts its services with OAuth 2.0 the way S/4HANA
/// Cloud does — a token endpoint, opaque bearer tokens that end after 5 s, refresh tokens, `401`s with
/// `WWW-Authenticate` — and revokes every token on `DELETE /_mock/tokens`. The outcome is read on its side.
@Suite(
    .tags(.endToEnd),
    .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"),
    .enabled(if: mockSAPOAuthRoot != nil, "CARDEALER_MOCKSAP_OAUTH_ROOT is not set (see .ci/checks)")
)
struct IndependentSignInTests {
    typealias Launch = BrowserInTmuxTests.Launch
    /// The client the CI script registered with mock-sap.
    static let clientID = "cardealer-ci"
    static let secret = "ci-Secret-7f3a9"

    static var origin: String { (mockSAPOAuthRoot ?? "").components(separatedBy: "/sap/").first ?? "" }
    static var tokenURL: String { origin + "/sap/bc/sec/oauth2/token" }

    /// Revokes every token mock-sap issued, refresh tokens included.
    static func revokeAll() async throws {
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(method: .delete, url: origin + "/_mock/tokens"))
        #expect(response.status == 200)
    }

    /// The grants of the tokens mock-sap holds as valid, newest first.
    static func grants() async throws -> [String] {
        let response = try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: origin + "/_mock/tokens"))
        guard case .array(let tokens)? = try JSONReader().read(response.body)["results"] else { return [] }
        return tokens.compactMap { token in
            guard case .bool(false)? = token["expired"], case .string(let grant)? = token["grant"] else { return nil }
            return grant
        }
    }

    /// Every file under `directory` but the token store, read whole.
    static func filesWritten(under directory: String) -> [(path: String, text: String)] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var files: [(String, String)] = []
        while let relative = enumerator?.nextObject() as? String {
            let path = directory + "/" + relative
            guard !relative.hasSuffix("tokens.json"), let data = FileManager.default.contents(atPath: path) else {
                continue
            }
            files.append((path, String(decoding: data, as: UTF8.self)))
        }
        return files
    }

    @Test func login_whoami_then_browse_past_expiry_and_revocation_with_no_secret_in_any_file() async throws {
        let root = try #require(mockSAPOAuthRoot)
        let directory = try BuiltProducts.temporaryDirectory("cardealer-oauth")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let signIn = ["--client-id", Self.clientID, "--token-url", Self.tokenURL]
        let environment = [
            "XDG_STATE_HOME": directory + "/state", "XDG_CACHE_HOME": directory + "/cache",
            "XDG_CONFIG_HOME": directory + "/config",
        ]
        // Given no token: whoami says so, and a wrong secret is refused in the server's words
        let none = try await offThePool {
            try CommandLineTests.runWithStatus(["whoami", root], in: directory, environment: environment)
        }
        #expect(none.status == 1 && none.output.contains("Not signed in"), "\(none.output)")
        let wrong = try await offThePool {
            try CommandLineTests.runWithStatus(
                ["login", root] + signIn, in: directory,
                environment: environment.merging(["CARDEALER_CLIENT_SECRET": "nope"]) { $1 })
        }
        #expect(wrong.status == 1 && wrong.output.contains("invalid_client"), "\(wrong.output)")
        // When the client signs in, the service and how to sign in to it kept in the config file
        try FileManager.default.createDirectory(
            atPath: directory + "/config/cardealer", withIntermediateDirectories: true)
        try "service = \"\(root)\"\n[sign-in]\nclient-id = \"\(Self.clientID)\"\ntoken-url = \"\(Self.tokenURL)\"\n"
            .write(toFile: directory + "/config/cardealer/config.toml", atomically: true, encoding: .utf8)
        let login = try await offThePool {
            try CommandLineTests.runWithStatus(
                ["login"], in: directory,
                environment: environment.merging(["CARDEALER_CLIENT_SECRET": Self.secret]) { $1 })
        }
        #expect(login.status == 0 && login.output.contains("Signed in to \(root)"), "\(login.output)")
        #expect(!login.output.contains(Self.secret))
        let whoami = try await offThePool {
            try CommandLineTests.runWithStatus(["whoami", root], in: directory, environment: environment)
        }
        #expect(whoami.status == 0 && whoami.output.contains("client \(Self.clientID)"), "\(whoami.output)")
        #expect(whoami.output.contains("renewed with its refresh token"), "\(whoami.output)")

        // And browses with the stored token, in tmux, with a trace
        // (the login's token file: the Launch gives the browser a state directory of its own)
        let app = try Launch(
            "browse \(root)BusinessPartnerSet " + signIn.joined(separator: " ") + " --trace \(directory)/trace.jsonl"
                + " --token-file \(directory)/state/cardealer/tokens.json",
            columns: 120, rows: 30,
            environment: "XDG_STATE_HOME=\(directory)/state CARDEALER_CLIENT_SECRET=\(Self.secret) ")
        defer { app.close() }
        try await app.expect("the business partners") { $0.contains("● online") && $0.contains("Becker Berlin") }
        // When the token has ended (5 s) and the list is refreshed
        try await Task.sleep(for: .seconds(6))
        try app.tmux.sendKeys("r")
        try await app.expect("the list again, online") { $0.contains("● online") && $0.contains("just now") }
        // Then the token in use on the server was had with the refresh token (mock-sap revokes the one it replaces)
        // (the status line's "just now" may still be the first read's: the server's side is what counts)
        let refreshed = try await eventually(seconds: 20) { try await Self.grants() == ["refresh_token"] }
        let afterExpiry = try await Self.grants()
        #expect(refreshed, "\(afterExpiry)")
        // And when every token is revoked on the server, refresh tokens too, and the list refreshed again
        try await Self.revokeAll()
        // (an r pressed while the last refresh is still under way is taken as that one: pressed again until a
        // request goes out, as a person would)
        var signedInAnew = false
        for _ in 0..<20 where !signedInAnew {
            try app.tmux.sendKeys("r")
            signedInAnew = try await eventually(seconds: 1) { try await Self.grants() == ["client_credentials"] }
        }
        let afterRevocation = try await Self.grants()
        #expect(signedInAnew, "\(afterRevocation)")
        try await app.expect("the list again, online") { $0.contains("● online") && $0.contains("just now") }
        let screen = try app.tmux.capture()
        #expect(!screen.contains("Unauthorized") && !screen.contains("offline"), "\(screen)")
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }

        // And no token or secret is in any file the run wrote but the token store (cache, logs, trace)
        let store = TokenStore(path: directory + "/state/cardealer/tokens.json")
        let kept = try store.entries().map(\.token)
        #expect(kept.count == 1)
        let secrets = [Self.secret] + kept.flatMap { [$0.accessToken] + ($0.refreshToken.map { [$0] } ?? []) }
        let files = Self.filesWritten(under: directory) + Self.filesWritten(under: app.directory)
        #expect(files.contains { $0.path.hasSuffix("trace.jsonl") })
        #expect(files.contains { $0.path.hasSuffix(".sqlite") || $0.path.hasSuffix(".sqlite-wal") })
        for file in files {
            for secret in secrets { #expect(!file.text.contains(secret), "\(file.path) holds a secret") }
        }
        // And logout forgets the token
        let logout = try await offThePool {
            try CommandLineTests.runWithStatus(["logout", root], in: directory, environment: environment)
        }
        #expect(logout.output.contains("Forgot"), "\(logout.output)")
        #expect(try store.entries().isEmpty)
    }

    @Test func a_change_queued_while_the_sign_in_is_refused_waits_and_lands_once_after_login() async throws {
        let root = try #require(mockSAPOAuthRoot)
        let directory = try BuiltProducts.temporaryDirectory("cardealer-oauth")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = TokenStore(path: directory + "/tokens.json")
        let right = SignInSettings(
            serviceRoot: root, tokenURL: Self.tokenURL, clientID: Self.clientID, clientSecret: Self.secret)
        // Given the fetcher signed in, a business partner cached with its ETag
        var wrong = right
        wrong.clientSecret = "rotated-away"
        let tokens = TokenSource(settings: wrong, store: store)
        _ = try await TokenSource(settings: right, store: store).signIn()
        let transport = try HTTPClientTransport(serviceRoot: root, environment: [:], timeout: 5, tokens: tokens)
        let metadata = try await transport.send(TransportRequest(url: root + "$metadata", acceptsXML: true))
        let model = try EDMXParser.parse(metadata.body)
        let cache = try CacheDatabase()
        let engine = try SyncEngine.forTesting(
            root: root, transport: transport, model: model, cache: cache, clock: SystemClock()
        ) {
            $0.writeRetry = RetryPolicy(maxAttempts: .max, baseDelay: 0.2, maxDelay: 0.5, budget: .infinity)
            $0.offlineProbeInterval = 0.5
        }
        let list = ListRequest(entitySet: "BusinessPartnerSet")
        engine.screenDidShow(.list(list), visible: 0..<3, screen: ScreenID(1))
        await engine.waitUntilIdle()
        let key = try #require(try cache.listWindow(list.key, range: 1..<2).rows.first?.entity?.key)
        // When every token is revoked, and the client's secret no longer works (so no renewal can succeed)
        try await Self.revokeAll()
        let before = try await mockSAPRequests(root: root, after: 0).map(\.id).max() ?? 0
        // And a change is queued and flushed
        let name = "Signed \(UInt16.random(in: 1000...9999))"
        try await cache.write { session in
            _ = try session.enqueueUpdate(
                key, changes: [.init(name: "CompanyName", value: .string(name))], requestID: UUID().uuidString,
                at: Date())
        }
        await engine.flushOutbox()
        // Then it waits in the outbox, saying to sign in
        let waiting = try await eventually {
            try cache.outboxEntries().first?.lastError?.contains("cardealer login") == true
        }
        let queued = try cache.outboxEntries().map { "\($0.state) \($0.lastError ?? "")" }
        #expect(waiting, "\(queued)")
        #expect(try cache.outboxEntries().count == 1)
        // When the user signs in again (another process writes the token store)
        _ = try await TokenSource(settings: right, store: store).signIn()
        // Then the change is sent with the new token and lands once
        let settled = try await eventually { try cache.outboxEntries().isEmpty }
        let left = try cache.outboxEntries().map { "\($0.state) \($0.lastError ?? "")" }
        #expect(settled, "\(left)")
        let writes = try await mockSAPRequests(root: root, after: before).filter {
            $0.method != "GET" && (200..<300).contains($0.status)
        }
        #expect(writes.count == 1, "\(writes)")
        let check = try HTTPClientTransport(
            serviceRoot: root, environment: [:], timeout: 5, tokens: TokenSource(settings: right, store: store))
        guard case .string(let id)? = key.values.first?.value else { return }
        let read = try await check.send(TransportRequest(url: root + "BusinessPartnerSet('\(id)')"))
        #expect(String(decoding: read.body, as: UTF8.self).contains(name))
        withExtendedLifetime(engine) {}
    }
}
