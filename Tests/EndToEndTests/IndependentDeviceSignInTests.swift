import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// The issuer of `.ci/independent/sign_in_service.py` (Authlib's authorization server in front of the ownership
/// service), when `.ci/checks/30-independent-writes.sh` started one.
let signInIssuer = ProcessInfo.processInfo.environment["CARDEALER_SIGNIN_ISSUER"]

/// The device authorization grant (issue 35) against an authorization server we did not write (Authlib's), with
/// 5-second tokens: the test plays the person who enters the code on another device, through the server's test
/// hands (`/_test/device`), and reads the outcome on the server's side.
@Suite(
    .tags(.endToEnd),
    .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"),
    .enabled(if: signInIssuer != nil, "CARDEALER_SIGNIN_ISSUER is not set (see .ci/checks)")
)
struct IndependentDeviceSignInTests {
    typealias Launch = BrowserInTmuxTests.Launch
    static let clientID = "cardealer-device"
    static var issuer: String { signInIssuer ?? "" }
    static var root: String { issuer + "/odata/" }
    static var signIn: [String] {
        ["--client-id", clientID, "--issuer", issuer, "--grant", "device", "--scope", "openid"]
    }

    /// POSTs `body` (JSON) to the server's test hands at `path`.
    static func hands(_ path: String, _ body: String = "{}") async throws {
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(
                method: .post, url: issuer + path, headers: ["Content-Type": "application/json"], body: Array(body.utf8)
            ))
        #expect(response.status == 200, "\(path): \(response.status)")
    }

    /// Approves (or denies) `code` as `user`, as the person at the other device would.
    static func decide(_ code: String, as user: String, approve: Bool = true) async throws {
        try await hands("/_test/device", #"{"user_code":"\#(code)","user":"\#(user)","approve":\#(approve)}"#)
    }

    /// The code in `text` ("… enter the code ABCD-EFGH …").
    static func code(in text: String) -> String? {
        guard let range = text.range(of: #"the code [A-Z0-9]{4}-[A-Z0-9]{4}"#, options: .regularExpression) else {
            return nil
        }
        return String(text[range].suffix(9))
    }

    /// The times the server saw polls of `code`.
    static func polls(of code: String) async throws -> [Double] {
        let response = try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: issuer + "/_test/polls"))
        guard case .array(let entries)? = try JSONReader().read(response.body)["results"] else { return [] }
        for entry in entries {
            guard case .string(code)? = entry["user_code"], case .array(let times)? = entry["at"] else { continue }
            return times.compactMap { if case .number(let text) = $0 { Double(text) } else { nil } }
        }
        return []
    }

    /// `cardealer login` running, its output read as it comes.
    final class Running: @unchecked Sendable {
        let process = Process()
        let pipe = Pipe()
        let lock = NSLock()
        var text = ""

        init(_ arguments: [String], state: String) throws {
            process.executableURL = URL(
                fileURLWithPath: try #require(BuiltProducts.executable("cardealer"), "cardealer is not built"))
            process.arguments = arguments
            process.environment = ["HOME": state, "XDG_STATE_HOME": state, "PATH": "/usr/bin:/bin"]
            process.standardOutput = pipe
            process.standardError = pipe
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                guard let self, !data.isEmpty else { return }
                self.lock.withLock { self.text += String(decoding: data, as: UTF8.self) }
            }
            try process.run()
        }

        var output: String { lock.withLock { text } }

        /// The exit status, once it ends (at most `seconds`).
        func status(within seconds: Double) async throws -> Int32? {
            let ended = try await eventually(seconds: seconds) { !self.process.isRunning }
            return ended ? process.terminationStatus : nil
        }
    }

    @Test func login_shows_a_code_waits_for_it_honours_slow_down_and_names_the_user() async throws {
        let state = try BuiltProducts.temporaryDirectory("cardealer-device")
        defer { try? FileManager.default.removeItem(atPath: state) }
        // When login runs with the device grant, the server asked to slow the next poll down
        try await Self.hands("/_test/slow-down")
        let login = try Running(["login", Self.root] + Self.signIn, state: state)
        // Then it says where to go and which code to enter
        let shown = try await eventually(seconds: 20) { Self.code(in: login.output) != nil }
        #expect(shown, "\(login.output)")
        let code = try #require(Self.code(in: login.output))
        #expect(login.output.contains("open \(Self.issuer)/device"), "\(login.output)")
        // And polls, five seconds apart once it was told to slow down
        let slowed = try await eventually(seconds: 20) { try await Self.polls(of: code).count >= 2 }
        #expect(slowed)
        // When ann enters the code
        try await Self.decide(code, as: "ann")
        // Then login ends signed in as ann (the token names her), and whoami says so
        #expect(try await login.status(within: 30) == 0, "\(login.output)")
        #expect(login.output.contains("as ann by device"), "\(login.output)")
        let times = try await Self.polls(of: code)
        #expect(times.count >= 3, "\(times)")
        if times.count >= 3 {
            #expect(times[2] - times[1] >= 5.5, "the poll after slow_down came \(times[2] - times[1]) s later")
        }
        let whoami = try await offThePool {
            try CommandLineTests.runWithStatus(
                ["whoami", Self.root], in: state, environment: ["XDG_STATE_HOME": state])
        }
        #expect(whoami.output.contains("ann (client \(Self.clientID), device)"), "\(whoami.output)")
    }

    @Test func a_denied_code_ends_login_with_a_sentence() async throws {
        let state = try BuiltProducts.temporaryDirectory("cardealer-device")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let login = try Running(["login", Self.root] + Self.signIn, state: state)
        let shown = try await eventually(seconds: 20) { Self.code(in: login.output) != nil }
        #expect(shown, "\(login.output)")
        try await Self.decide(try #require(Self.code(in: login.output)), as: "ann", approve: false)
        #expect(try await login.status(within: 30) == 1, "\(login.output)")
        #expect(login.output.contains("the sign-in was refused at \(Self.issuer)/device"), "\(login.output)")
        #expect(try TokenStore(path: state + "/cardealer/tokens.json").entries().isEmpty)
    }

    @Test func browse_asks_for_the_code_on_its_start_up_screen_and_again_on_the_status_line_when_revoked() async throws
    {
        // Given no token: browse with the device grant shows the code on the start-up screen
        let app = try Launch("browse \(Self.root)Person " + Self.signIn.joined(separator: " "), columns: 120, rows: 30)
        defer { app.close() }
        let prompt = try await app.expect("the code on the start-up screen") {
            $0.contains("To sign in, open \(Self.issuer)/device") && Self.code(in: $0) != nil
        }
        // When bob enters it on another device
        try await Self.decide(try #require(Self.code(in: prompt)), as: "bob")
        // Then the people are browsed, from a cache that is bob's
        try await app.expect("the people") { $0.contains("● online") && $0.contains("Alice Smith") }
        let caches = try FileManager.default.contentsOfDirectory(atPath: app.directory + "/cache/cardealer")
        #expect(caches.contains { $0.contains("_bob-") && $0.hasSuffix(".sqlite") }, "\(caches)")
        // When every token is revoked on the server (so the refresh token is refused) and the list refreshed
        try await Self.hands("/_test/revoke")
        try app.tmux.sendKeys("r")
        // Then the status line says which code to enter, and nothing else waits
        let asked = try await app.expect("a new code on the status line") {
            $0.contains("Not signed in: open \(Self.issuer)/device and enter the code") && Self.code(in: $0) != nil
        }
        // When bob enters it, the browser goes on by itself
        try await Self.decide(try #require(Self.code(in: asked)), as: "bob")
        try await app.expect("online again") { $0.contains("● online") && !$0.contains("Not signed in") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test func value_help_from_the_services_other_service_is_read_with_the_same_sign_in() async throws {
        // Given carol signed in with the device grant, browsing the cars
        let app = try Launch("browse \(Self.root)Car " + Self.signIn.joined(separator: " "), columns: 120, rows: 30)
        defer { app.close() }
        let prompt = try await app.expect("the code on the start-up screen") { Self.code(in: $0) != nil }
        try await Self.decide(try #require(Self.code(in: prompt)), as: "carol")
        try await app.expect("the cars") { $0.contains("● online") && $0.contains("Corolla") }
        // When a car's form is opened and F4 pressed on its model, whose value help is the value-help service's
        try app.tmux.sendKeys("e")
        try await app.expect("the form") { $0.contains("Enter saves") }
        try app.tmux.sendKeys("Tab")
        try app.tmux.sendKeys("F4")
        // Then that service, behind the same authorization server, lists the models with carol's token: no second
        // code is asked for
        let listed = try await app.expect("the car models") {
            $0.contains("Car models") && $0.contains("Enter takes it for model")
        }
        #expect(Self.code(in: listed) == nil && !listed.contains("Not signed in"), "\(listed)")
        try app.tmux.sendKeys("Escape", "Escape", "q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}

/// The authorization code grant with PKCE and a loopback redirect (issue 35) against Authlib's server, which
/// requires an S256 challenge: the test is the web browser — it opens the URL login prints, signs in there as a
/// user (or declines), and follows the redirect back to login's listener on 127.0.0.1.
extension IndependentDeviceSignInTests {
    static var codeSignIn: [String] {
        ["--client-id", clientID, "--issuer", issuer, "--grant", "code", "--scope", "openid"]
    }

    /// The authorization URL login printed.
    static func authorizationURL(in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(issuer + "/oauth/authorize?") }.map(String.init)
    }

    /// Opens `url` as a web browser would, up to the redirect back to 127.0.0.1 (followed too); that last answer.
    static func browse(_ url: String) async throws -> (status: Int, location: String?, page: String) {
        let first = try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: url))
        guard let location = first.headers["location"] else {
            return (first.status, nil, String(decoding: first.body, as: UTF8.self))
        }
        let back = try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: location))
        return (back.status, location, String(decoding: back.body, as: UTF8.self))
    }

    @Test func login_in_a_web_browser_with_pkce_comes_back_to_the_loopback_listener() async throws {
        let state = try BuiltProducts.temporaryDirectory("cardealer-code")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let login = try Running(["login", Self.root] + Self.codeSignIn, state: state)
        let printed = try await eventually(seconds: 20) { Self.authorizationURL(in: login.output) != nil }
        #expect(printed, "\(login.output)")
        let url = try #require(Self.authorizationURL(in: login.output))
        #expect(url.contains("code_challenge_method=S256") && url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A"))
        // When carol signs in at that page
        let back = try await Self.browse(url + "&login=carol")
        #expect(back.location?.hasPrefix("http://127.0.0.1:") == true && back.page.contains("Signed in"), "\(back)")
        // Then login ends signed in as carol
        #expect(try await login.status(within: 30) == 0, "\(login.output)")
        #expect(login.output.contains("as carol by code"), "\(login.output)")
        #expect(try TokenStore(path: state + "/cardealer/tokens.json").entries().first?.token.user == "carol")
    }

    @Test func a_declined_sign_in_ends_login_with_a_sentence_and_a_forged_callback_is_turned_away() async throws {
        let state = try BuiltProducts.temporaryDirectory("cardealer-code")
        defer { try? FileManager.default.removeItem(atPath: state) }
        // A declined sign-in comes back with access_denied
        let declined = try Running(["login", Self.root] + Self.codeSignIn, state: state)
        _ = try await eventually(seconds: 20) { Self.authorizationURL(in: declined.output) != nil }
        _ = try await Self.browse(try #require(Self.authorizationURL(in: declined.output)) + "&login=")
        #expect(try await declined.status(within: 30) == 1, "\(declined.output)")
        #expect(declined.output.contains("the authorization server said access_denied"), "\(declined.output)")
        #expect(try TokenStore(path: state + "/cardealer/tokens.json").entries().isEmpty)
        // A request to the listener from another page (its own state) is answered 400 and changes nothing: the
        // sign-in still completes when the real one comes back
        let forged = try Running(["login", Self.root] + Self.codeSignIn, state: state)
        _ = try await eventually(seconds: 20) { Self.authorizationURL(in: forged.output) != nil }
        let url = try #require(Self.authorizationURL(in: forged.output))
        let redirect = try #require(
            URLComponents(string: url)?.queryItems?.first { $0.name == "redirect_uri" }?.value)
        let refused = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: redirect + "?code=stolen&state=not-the-one-sent"))
        #expect(refused.status == 400)
        #expect(forged.process.isRunning, "\(forged.output)")
        _ = try await Self.browse(url + "&login=erin")
        #expect(try await forged.status(within: 30) == 0, "\(forged.output)")
        #expect(try TokenStore(path: state + "/cardealer/tokens.json").entries().first?.token.user == "erin")
    }
}
